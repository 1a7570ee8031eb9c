#!/usr/bin/env bash
# wasm32-wasip1 under Node: the library crates' test suites run for real in Node's
# WebAssembly engine (V8), through node:wasi (scripts/wasm-run.mjs as the cargo runner).
#
#   scripts/ci/wasm-test.sh   (.ci/run stage "wasm32-wasip1 tests (node)"; the workflow's wasm-node job)
#
# Three builds, each in its own target directory (RUSTFLAGS differ):
# 1. `-C target-feature=+simd128`: every suite of chacha-core, chacha-backends, chacha20 and
#    chacha-rng (all features), expecting the backends simd128,soft — so the differential
#    matrix runs the `simd128` module and soft against the reference, and a build that
#    silently lost simd128 fails;
# 2. `--cfg chacha_backend="simd128"` with `+simd128`: the differential matrix with simd128
#    compiled alone;
# 3. `--cfg chacha_backend="simd128"` without `+simd128` must stop the build with a message
#    naming the flag.
# A build without `+simd128` (soft alone) is compiled by the "wasm32 build" stage; its
# kernel, soft, runs in build 1 beside simd128, so it is not run again here.
# and the timing program's smoke run (wasm-bench/run.sh --quick), whose own check that every
# implementation gives the same bytes must pass; its timings are not read.
#
# What does not run under wasm32-wasip1: the tests that catch a panic (chacha20's
# tests/hostile.rs: ignored where panic = "abort", as libtest ignores `should_panic` tests);
# the output says how many were ignored. PROPTEST_CASES is as the caller set it (.ci/run: 256).
#
# Needs node 20 or later (node:wasi, preview1) and the wasm32-wasip1 target (added here).
set -euo pipefail
cd "$(dirname "$0")/../.."
start=$SECONDS
target=wasm32-wasip1
say() { echo "wasm-test: $*"; }
fail() {
  echo "wasm-test: $*" >&2
  exit 1
}

command -v node >/dev/null || fail "node is needed (20 or later, for node:wasi); none on PATH"
node_major=$(node -p 'process.versions.node.split(".")[0]')
((node_major >= 20)) || fail "node $(node --version) is too old: node:wasi preview1 needs 20 or later"
rustup target list --installed | grep -qx "$target" || timeout 300 rustup target add "$target" >/dev/null 2>&1 ||
  fail "rustup could not add $target"

export CARGO_TARGET_WASM32_WASIP1_RUNNER="node $PWD/scripts/wasm-run.mjs"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
say "engine: node $(node --version) (V8 $(node -p process.versions.v8)); PROPTEST_CASES=${PROPTEST_CASES:-default}"
libs=(-p chacha-core -p chacha-backends -p chacha20@0.10.100 -p chacha-rng)
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# suite NAME EXPECT RUSTFLAGS CARGO-TEST-ARGS...
suite() {
  local name=$1 expect=$2 flags=$3
  shift 3
  say "$name: RUSTFLAGS='$flags', expecting $expect"
  RUSTFLAGS="$flags" CARGO_TARGET_DIR="$PWD/target/wasm-$name" CHACHA_EXPECT_BACKENDS="$expect" \
    cargo test --locked --target "$target" "$@" 2>&1 | tee -a "$log"
  say "$name done at $((SECONDS - start)) s"
}

suite simd128 simd128,soft "-C target-feature=+simd128" "${libs[@]}" --all-features
suite forced-simd128 simd128 '-C target-feature=+simd128 --cfg chacha_backend="simd128"' \
  -p chacha-backends --test differential

out=$(RUSTFLAGS='--cfg chacha_backend="simd128"' CARGO_TARGET_DIR="$PWD/target/wasm-forced-nofeature" \
  cargo build --locked --target "$target" -p chacha-backends 2>&1) &&
  fail "--cfg chacha_backend=\"simd128\" built without +simd128; it must fail"
grep -q 'chacha_backend="simd128" cannot run' <<<"$out" ||
  { echo "$out" >&2; fail "the pinned build without +simd128 failed without the expected message"; }
say "rejected as expected: $(grep -m1 'cannot run' <<<"$out")"

wasm-bench/run.sh --quick | tee -a "$log"
grep -q '^every implementation gives the same bytes' "$log" || fail "wasm-bench did not check its implementations"

passed=$(grep -Eo '^test result: ok\. [0-9]+ passed' "$log" | awk '{s += $4} END {print s + 0}')
ignored=$(grep -Eo '[0-9]+ ignored' "$log" | awk '{s += $1} END {print s + 0}')
say "$passed tests passed, $ignored ignored (panic = \"abort\": should_panic and catch_unwind tests)"
say "took $((SECONDS - start)) s"
