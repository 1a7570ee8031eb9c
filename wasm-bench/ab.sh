#!/usr/bin/env bash
# wasm-bench/ab.sh REV [ROUNDS] — the simd128 kernel of revision REV ("base") against the
# working tree's ("work"), both in one wasm32-wasip1 program (+simd128, release) under
# Node, calls interleaved: the way to decide a change to chacha-backends/src/simd128.rs
# (two runs of the timing program differ by more than most kernel changes on the shared
# machines). Prints per workload both medians and base/work at the 10th, 50th and 90th
# percentiles of the rounds (above 1: the working tree is faster). ROUNDS: default 41.
#
# How: wasm-bench/ab/main.rs includes the two versions of simd128.rs (and of rows128.rs, the
# output helpers it shares with sse2 and neon) as modules `base` and `work` (they need
# nothing of the crate but chacha-core and the output cursor, cursor.rs) and is built as a crate of
# its own in target/wasm-ab.
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:?usage: wasm-bench/ab.sh REV [ROUNDS]}
root=$PWD
dir=$root/target/wasm-ab
mkdir -p "$dir/src/base" "$dir/src/work"
git show "$rev:chacha-backends/src/simd128.rs" >"$dir/src/base/simd128.rs"
# The row-layout output simd128.rs shares with sse2 and neon (none before it was shared).
git show "$rev:chacha-backends/src/rows128.rs" >"$dir/src/base/rows128.rs" 2>/dev/null || : >"$dir/src/base/rows128.rs"
cp chacha-backends/src/simd128.rs chacha-backends/src/rows128.rs "$dir/src/work/"
# The output cursor both versions write through (`crate::cursor`): the working tree's.
cp chacha-backends/src/cursor.rs "$dir/src/cursor.rs"
cp wasm-bench/ab/main.rs "$dir/src/main.rs"
cat >"$dir/Cargo.toml" <<TOML
[package]
name = "chacha-wasm-ab"
version = "0.0.0"
edition = "2024"
publish = false

[workspace]

[dependencies]
chacha-core = { path = "$root/chacha-core" }
TOML
# The cfgs chacha-backends' build script sets for a simd128 build: cursor.rs compiles what
# simd128 uses under `chacha_uses` (`rows128` and what it brings, build.rs `USES`);
# `chacha_enabled` for the base of a revision from before that.
uses="--cfg chacha_enabled=\"simd128\""
for u in cursor rows128 blocks_by_index walk partial_spans; do uses+=" --cfg chacha_uses=\"$u\""; done
if ! (cd "$dir" && RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+simd128 $uses" \
  cargo build -q --release --target wasm32-wasip1); then
  echo "wasm-bench/ab.sh: the program did not build (REV must be 1e9fecf or later: the" \
    "kernel contract's buffer type changed there)" >&2
  exit 1
fi
exec node scripts/wasm-run.mjs "$dir/target/wasm32-wasip1/release/chacha-wasm-ab.wasm" "${2:-41}"
