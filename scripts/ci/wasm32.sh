#!/usr/bin/env bash
# wasm32-unknown-unknown: the library crates build for a target with no SIMD backend of
# ours and no CPU probe (only `soft` is compiled in there, so `Backend` has one variant),
# with every feature. The thumbv7em no_std build is .ci/run's "small targets build" stage.
#
#   scripts/ci/wasm32.sh          (.ci/run stage "wasm32 build"; the public workflow's gate job)
set -euo pipefail
cd "$(dirname "$0")/../.."
target=wasm32-unknown-unknown
rustup target list --installed | grep -qx "$target" || timeout 300 rustup target add "$target" >/dev/null 2>&1 ||
  { echo "rustup could not add $target (needed for the wasm32 build)" >&2; exit 1; }
cargo build --locked --target "$target" --all-features \
  -p chacha-core -p chacha-backends -p chacha20@0.10.100 -p chacha-rng
