//! The only reader of `--cfg chacha_backend="…"`, and of the published `chacha20` crate's
//! `--cfg chacha20_backend="…"`, which pins the same way (so a build set up for the
//! published crate keeps its meaning), and its `--cfg chacha20_avx512`, accepted and
//! without effect (AVX-512 is always compiled in and detected at run time here).
//!
//! Without the flag, every backend that can exist on the target architecture is compiled
//! in and `Backend::detect()` picks one at run time. With it, exactly the named backend is
//! compiled and the others are not, so an auditor reads one module. Either way the crate
//! sees the result as `cfg(chacha_enabled = "<name>")`, one per compiled-in backend, and as
//! `cfg(chacha_uses = "<use>")`, one per piece of shared code those backends use (`USES`).

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

/// What each backend uses of the code the backends share, as `cfg(chacha_uses = "…")`: a
/// shared helper is compiled where an enabled backend uses it, so its gate names what it
/// does, not who calls it, and a new backend lists here what it uses instead of editing
/// gates elsewhere. `USE@ARCH` uses it only on that architecture.
const USES: &[(&str, &[&str])] = &[
    (
        "avx512",
        &[
            "cursor",
            "cursor_parts",
            "raw_keystream",
            "block_count",
            "walk",
            "sets_in_order",
            "partial_masked",
            "head",
            "batch_in_pieces",
            "barrier",
        ],
    ),
    (
        "avx2",
        &[
            "cursor",
            "cursor_parts",
            "raw_keystream",
            "block_count",
            "blocks_by_index",
            "partial_spans",
            "partial_tail",
            "head",
            "batch_in_pieces",
            "barrier",
            "stitched@x86_64",
        ],
    ),
    (
        "sse2",
        &[
            "rows128",
            "cursor_parts",
            "head",
            "head_finish",
            "quarter_round",
            "batch_in_pieces",
            "repeat_rounds",
        ],
    ),
    ("neon", &["rows128", "stitched"]),
    ("simd128", &["rows128"]),
    ("soft", &["quarter_round"]),
];

/// The uses a use brings with it.
///
/// | use | what it compiles |
/// |---|---|
/// | `cursor` | `src/cursor.rs`: the output cursor, the one holder of a request's pointers |
/// | `cursor_parts` | the cursor as three words, for entry points that keep it in registers |
/// | `raw_keystream` | a cursor over raw keystream (`&mut [Block]`) |
/// | `block_count` | blocks left in a request, a partial last block counted as one |
/// | `blocks_by_index` | whole blocks by index (`Cursor::blocks_at`) |
/// | `walk` | a request walked in order: its length, its last partial block |
/// | `sets_in_order` | whole sets of `N` blocks in order (`Cursor::next`) |
/// | `partial_spans` | a partial block in spans split by the bits of its length |
/// | `partial_tail` | a partial block's keystream through the caller's block (`Tail`) |
/// | `partial_masked` | a partial block through byte-masked loads and stores |
/// | `rows128` | `src/rows128.rs` (`rows128!`): the row-layout output of 128-bit backends |
/// | `head` | `src/head.rs`: the counter-free head of the first double round |
/// | `head_finish` | the rest of that double round for one block, in general-purpose registers |
/// | `quarter_round` | `quarter_round` (`src/lib.rs`): one block's quarter round in general-purpose registers |
/// | `stitched` | `src/stitched.rs`: what the stitched AEAD loops share |
/// | `batch_in_pieces` | `fill_batch` of more blocks than one batch, in batches |
/// | `barrier` | `schedule_barrier!`: an empty `asm!` that keeps a value where it is computed |
/// | `repeat_rounds` | `repeat_rounds!`: a loop over a double-round count known at run time |
const IMPLIES: &[(&str, &[&str])] =
    &[("rows128", &["cursor", "blocks_by_index", "walk", "partial_spans"]), ("head", &["quarter_round"])];

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
    let mut all_uses: Vec<&str> =
        USES.iter().flat_map(|(_, uses)| uses.iter()).map(|u| use_name(u)).collect();
    all_uses.extend(IMPLIES.iter().flat_map(|(_, uses)| uses.iter().copied()));
    all_uses.sort_unstable();
    all_uses.dedup();
    let uses_values: Vec<String> = all_uses.iter().map(|u| format!("\"{u}\"")).collect();
    println!("cargo::rustc-check-cfg=cfg(chacha_uses, values({}))", uses_values.join(", "));

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
    if let Some((name, _)) = BACKENDS.iter().find(|(name, _)| !USES.iter().any(|(n, _)| n == name)) {
        fail(&format!("build.rs: backend \"{name}\" has no entry in USES (what it uses of the shared code)"));
    }
    let mut uses: Vec<&str> = Vec::new();
    for name in &enabled {
        println!("cargo::rustc-cfg=chacha_enabled=\"{name}\"");
        let listed = USES.iter().find(|(n, _)| n == name).map_or(&[][..], |(_, uses)| *uses);
        for item in listed {
            let on_arch = item.split_once('@').is_none_or(|(_, only)| only == arch);
            if on_arch {
                uses.push(use_name(item));
            }
        }
    }
    let implied: Vec<&str> =
        IMPLIES.iter().filter(|(u, _)| uses.contains(u)).flat_map(|(_, more)| more.iter().copied()).collect();
    uses.extend(implied);
    uses.sort_unstable();
    uses.dedup();
    for item in uses {
        println!("cargo::rustc-cfg=chacha_uses=\"{item}\"");
    }
}

/// A `USES` entry's name, without its `@ARCH`.
fn use_name(item: &str) -> &str {
    item.split_once('@').map_or(item, |(name, _)| name)
}

fn fail(message: &str) -> ! {
    eprintln!("error: {message}");
    exit(1);
}
