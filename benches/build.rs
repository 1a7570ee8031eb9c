//! Declares `--cfg chacha20_avx512`, the published crate's flag, so this package can tell
//! (with `cfg!`) whether it is the report's second build, the one whose published crate
//! runs its AVX-512 backend.
fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rustc-check-cfg=cfg(chacha20_avx512)");
}
