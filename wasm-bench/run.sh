#!/usr/bin/env bash
# wasm-bench/run.sh [--quick] — builds chacha-wasm-bench for wasm32-wasip1 with the
# `simd128` target feature (release profile) and runs it under Node's WASI
# (scripts/wasm-run.mjs), which tells it the engine's version. Prints the CPU, the engine,
# the backends and a Markdown table (see the program's header for what it measures).
#
#   wasm-bench/run.sh                        # 31 rounds per workload: a few seconds after the build
#   wasm-bench/run.sh --quick                # 9 shorter rounds: that it runs (CI's smoke run)
#   wasm-bench/run.sh --workloads chacha20   # some workloads (the program's header lists them)
#
# Needs `node` (20 or later, for node:wasi preview1) and the wasm32-wasip1 target (added
# with rustup if it is missing). Builds into target/wasm-bench.
set -euo pipefail
cd "$(dirname "$0")/.."
target=wasm32-wasip1
command -v node >/dev/null || { echo "wasm-bench: node is needed (20 or later)" >&2; exit 1; }
rustup target list --installed | grep -qx "$target" || timeout 300 rustup target add "$target" >/dev/null 2>&1 ||
  { echo "wasm-bench: rustup could not add $target" >&2; exit 1; }
export CARGO_TARGET_DIR="$PWD/target/wasm-bench"
RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+simd128" \
  cargo build -q --release --target "$target" -p chacha-wasm-bench
exec node scripts/wasm-run.mjs "$CARGO_TARGET_DIR/$target/release/chacha-wasm-bench.wasm" "$@"
