#!/usr/bin/env bash
# The MSRV promise: every crate says `rust-version = "1.89"` (the workspace's); the library
# crates, with all their features and all their targets (tests, examples: so the
# dev-dependencies too), build with Rust 1.89. 1.89 is the floor because it stabilised the
# AVX-512 target features and intrinsics that the avx512 module uses.
#
#   scripts/ci/msrv.sh            cargo check (.ci/run stage "msrv 1.89")
#   scripts/ci/msrv.sh test       cargo test, the same crates (the public workflow's msrv job)
#
# Installs the 1.89 toolchain with rustup (`--profile minimal`, about 20 s) if it is missing,
# and fails if it cannot: a check that passes without running proves nothing.
set -euo pipefail
cd "$(dirname "$0")/../.."
mode=${1:-check}
case $mode in check | test) ;; *) echo "usage: $0 [check|test]" >&2; exit 2 ;; esac
msrv=$(sed -n 's/^rust-version = "\(.*\)"$/\1/p' Cargo.toml)
[ "$msrv" = 1.89 ] || { echo "workspace rust-version is '$msrv', this check is for 1.89" >&2; exit 1; }

# Every package of the workspace (and of the report's and the stand-alone example) declares
# the MSRV, so `cargo` tells a user on an older toolchain why instead of failing in a
# dependency.
status=0
while read -r name version; do
  [ "$version" = "$msrv" ] || { echo "package $name has rust-version '$version', not $msrv" >&2; status=1; }
done < <(for manifest in Cargo.toml benches/Cargo.toml examples/patch-ecosystem/Cargo.toml; do
  cargo metadata --no-deps --format-version 1 --manifest-path "$manifest" |
    python3 -c 'import json, sys
for p in json.load(sys.stdin)["packages"]:
    print(p["name"], p.get("rust_version") or "none")'
done)
((status == 0)) || exit 1
echo "every package declares rust-version $msrv"

if ! rustup toolchain list | grep -q "^$msrv"; then
  if ! timeout 300 rustup toolchain install "$msrv" --profile minimal; then
    echo "msrv: rustup could not install Rust $msrv (above); the MSRV check cannot run" >&2
    exit 1
  fi
fi
# The lock file is the one the workspace tests with: every dependency in it builds on the
# MSRV today. If one stops doing so, cargo names it; resolve a scratch copy then with
# CARGO_RESOLVER_INCOMPATIBLE_RUST_VERSIONS=fallback rather than pinning by hand.
targets=(--all-targets)
[ "$mode" = test ] && targets=() # `test` builds and runs every test target itself
CARGO_TARGET_DIR=target/msrv cargo "+$msrv" "$mode" --locked --all-features "${targets[@]}" \
  -p chacha-core -p chacha-backends -p chacha20@0.10.100 -p chacha-rng -p poly1305@0.9.100
echo "library crates: cargo $mode passes with $(rustc "+$msrv" --version)"
