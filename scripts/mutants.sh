#!/usr/bin/env bash
# Mutation testing with cargo-mutants: each mutant (an operator swapped, a function body
# replaced by a default value, a condition negated, ...) is built and the package's tests
# run against it; a mutant the tests pass is a test that could not fail.
#
#   scripts/mutants.sh [PACKAGE...]     (default: chacha-core; .ci/run stage "mutants: chacha-core")
#
# The configuration is .cargo/mutants.toml: all features (the `zeroize` tests are behind
# the feature), each package's own tests, and the mutants that cannot change any output,
# each with the reason it is equivalent. Exits non-zero if a mutant is missed (its list is
# in target/mutants/mutants.out/missed.txt). A mutant that makes a test run forever (e.g. a
# refill loop that never ends) is stopped by cargo-mutants' timeout and counts as caught.
#
# Figures (Intel Xeon family 6 model 167, 2 cores): chacha-core 80 mutants in 3 minutes
# (with other builds running);
# chacha-rng 123 in 10 minutes; chacha20 91 at about 90 s of build each (its test
# binaries with every feature), so about an hour; chacha-backends 445, longer still (each
# mutant rebuilds every backend and runs the differential matrix). Only chacha-core is
# in the gate.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=("$@")
[ ${#packages[@]} -gt 0 ] || packages=(chacha-core)

if ! cargo mutants --version >/dev/null 2>&1; then
  echo "installing cargo-mutants"
  start=$SECONDS
  cargo install cargo-mutants --version 27.1.0 --locked
  echo "cargo-mutants installed in $((SECONDS - start)) s"
fi

args=()
for p in "${packages[@]}"; do args+=(-p "$p"); done
status=0
missed=target/mutants/mutants.out/missed.txt
cargo mutants "${args[@]}" --output target/mutants --no-shuffle -j 2 || status=$?
# 0: every mutant caught; 3: some stopped by the timeout (caught). cargo-mutants exits 3
# also when it missed others beside a timeout: its list of missed mutants decides.
if [ "$status" = 3 ] && [ -s "$missed" ]; then status=2; fi
case $status in
  0 | 3) echo "no mutant missed" ;;
  2) echo "missed mutants:" >&2; cat "$missed" >&2; exit 1 ;;
  *) echo "cargo mutants failed (exit $status)" >&2; exit 1 ;;
esac
