//! The only reader of `--cfg chacha_backend="…"`, and of the published `chacha20` crate's
//! `--cfg chacha20_backend="…"`, which pins the same way (so a build set up for the
//! published crate keeps its meaning), and its `--cfg chacha20_avx512`, accepted and
//! without effect (AVX-512 is always compiled in and detected at run time here).
//!
//! Without the flag, every backend that can exist on the target architecture is compiled
//! in and `Backend::detect()` picks one at run time. With it, exactly the named backend is
//! compiled and the others are not, so an auditor reads one module. Either way the crate
//! sees the result as `cfg(chacha_enabled = "<name>")`, one per compiled-in backend.

use std::{env, process::exit};

/// Every backend this version has, fastest first, with the target architectures it can run
/// on (empty: all). The names are the module, type, enum variant, cfg value and bench id;
/// `src/backend.rs` has the same list as its `backends!` table.
const BACKENDS: &[(&str, &[&str])] = &[
    ("avx512", &["x86", "x86_64"]),
    ("avx2", &["x86", "x86_64"]),
    ("sse2", &["x86", "x86_64"]),
    ("neon", &["aarch64"]),
    ("simd128", &["wasm32"]),
    ("soft", &[]),
];

/// What some backends also need of the target, as Cargo's `CARGO_CFG_<KEY>` values (a comma
/// list must contain the value). `neon` reinterprets its lanes as little-endian bytes, and
/// its helper functions rely on NEON being part of the target's baseline (so they inline
/// without `#[target_feature]`): `aarch64_be` and the `softfloat` AArch64 targets get `soft`.
/// `simd128` exists only in builds with the `simd128` target feature: WebAssembly has no
/// run-time detection (an engine without SIMD refuses the whole module), so the build chooses.
const TARGET_NEEDS: &[(&str, &[(&str, &str)])] = &[
    ("neon", &[("TARGET_ENDIAN", "little"), ("TARGET_FEATURE", "neon")]),
    ("simd128", &[("TARGET_FEATURE", "simd128")]),
];

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    let names: Vec<String> = BACKENDS.iter().map(|(name, _)| format!("\"{name}\"")).collect();
    let values = names.join(", ");
    println!("cargo::rustc-check-cfg=cfg(chacha_backend, values({values}))");
    println!("cargo::rustc-check-cfg=cfg(chacha_enabled, values({values}))");
    println!("cargo::rustc-check-cfg=cfg(chacha20_backend, values({values}))");
    println!("cargo::rustc-check-cfg=cfg(chacha20_avx512)");

    let arch = env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    // The target properties `name` needs that this target lacks, as `key=value` texts.
    let lacking = |name: &str| -> Vec<String> {
        let needs = TARGET_NEEDS.iter().filter(|(n, _)| *n == name).flat_map(|(_, needs)| needs.iter());
        needs
            .filter(|(key, value)| {
                let have = env::var(format!("CARGO_CFG_{key}")).unwrap_or_default();
                !have.split(',').any(|v| v == *value)
            })
            .map(|(key, value)| format!("{}=\"{value}\"", key.to_lowercase()))
            .collect()
    };
    let runs_here = |name: &str, arches: &[&str]| {
        (arches.is_empty() || arches.contains(&arch.as_str())) && lacking(name).is_empty()
    };

    // (flag, value) of the pin, if any: ours, or the published crate's under its name.
    let pin = match (env::var("CARGO_CFG_CHACHA_BACKEND"), env::var("CARGO_CFG_CHACHA20_BACKEND")) {
        (Ok(ours), Ok(published)) if ours != published => fail(&format!(
            "--cfg chacha_backend=\"{ours}\" and --cfg chacha20_backend=\"{published}\" pin \
             different backends (chacha20_backend is the published crate's name for the same flag)"
        )),
        (Ok(ours), _) => Some(("chacha_backend", ours)),
        (Err(_), Ok(published)) => Some(("chacha20_backend", published)),
        (Err(_), Err(_)) => None,
    };
    let enabled: Vec<&str> = match pin {
        None => {
            BACKENDS.iter().filter(|(name, arches)| runs_here(name, arches)).map(|(name, _)| *name).collect()
        }
        Some((flag, pinned)) => {
            let Some((name, arches)) = BACKENDS.iter().find(|(name, _)| *name == pinned) else {
                fail(&format!(
                    "--cfg {flag}=\"{pinned}\" is not a backend of this crate \
                     (it pins exactly one of: {values})"
                ));
            };
            if !runs_here(name, arches) {
                let mut needs = vec![format!("target_arch one of: {}", arches.join(", "))];
                needs.extend(lacking(name));
                fail(&format!(
                    "--cfg {flag}=\"{name}\" cannot run on target_arch \"{arch}\" \
                     (it needs {})",
                    needs.join("; ")
                ));
            }
            vec![*name]
        }
    };
    for name in enabled {
        println!("cargo::rustc-cfg=chacha_enabled=\"{name}\"");
    }
}

fn fail(message: &str) -> ! {
    eprintln!("error: {message}");
    exit(1);
}
