#!/usr/bin/env bash
# Mutation testing with cargo-mutants: each mutant (an operator swapped, a function body
# replaced by a default value, a condition negated, ...) is built and the package's tests
# run against it; a mutant the tests pass is a test that could not fail.
#
#   scripts/mutants.sh [PACKAGE...]     (default: chacha-core)
#   scripts/mutants.sh --unless-verified  chacha-core, unless this tree's inputs are the ones
#                                         a whole run passed on (.ci/run stage "mutants: chacha-core")
#   scripts/mutants.sh --record           chacha-core, all of it; on a pass writes the record
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
# in the gate: 344 mutants, 887 s of a gate on AMD EPYC Zen 3 (2 cores), a third of its
# budget, spent again on every landing though chacha-core rarely changes.
#
# So the gate keeps a record, .cargo/mutants-verified: the key of the inputs a whole run
# passed on and where that run was. The inputs are what a mutant's build and tests read:
# the git objects of chacha-core/, testdata/ and .cargo/mutants.toml (the code, its tests,
# the exclusions); chacha-core's resolved dependencies with their versions and features
# (`cargo tree -p chacha-core`, dev-dependencies included: what Cargo.lock says for it);
# and the workspace's build settings (Cargo.toml without its member list and dependency
# table: edition, lints, profiles). A crate added to the workspace, or a dependency of
# another crate updated, leaves the key as it was. With --unless-verified the run is
# skipped when the key of this checkout matches, and says so; any change to those inputs
# (or an uncommitted one) runs every mutant. A run with --record that misses none writes
# the record: commit it with the change it verified. The gate itself never writes it, so
# a record is always a whole run somebody made on the tree it names.
set -euo pipefail
cd "$(dirname "$0")/.."

record_file=.cargo/mutants-verified
key_inputs=(chacha-core testdata .cargo/mutants.toml)
# The inputs as committed; "dirty" when the working tree differs from them (Cargo.lock and
# Cargo.toml feed the derived parts).
inputs_key() {
  local files=("${key_inputs[@]}" Cargo.lock Cargo.toml)
  if ! git diff --quiet HEAD -- "${files[@]}" || [ -n "$(git ls-files --others --exclude-standard -- "${files[@]}")" ]; then
    echo dirty; return
  fi
  local p deps
  deps=$(cargo tree -q -p chacha-core --all-features -e normal,build,dev --locked --prefix none --format '{p} {f}' |
    sed -E 's/ \(\/[^)]*\)//; s/ \(\*\)$//' | sort -u) ||
    { echo "mutants: cargo tree could not resolve chacha-core's dependencies" >&2; return 1; }
  {
    for p in "${key_inputs[@]}"; do echo "$p $(git rev-parse "HEAD:$p")"; done
    echo "dependencies:"
    echo "$deps"
    echo "settings:"
    # Every section but the member list and the dependency table (whose entries for
    # chacha-core's dependencies are in the tree above); the resolver line stays.
    awk '/^\[/ { skip = ($0 == "[workspace]" || $0 == "[workspace.dependencies]") }
      !skip || /^resolver *=/' Cargo.toml
  } | sha256sum | cut -c1-64
}
mode=run
case ${1:-} in
  --unless-verified) mode=check; shift ;;
  --record) mode=record; shift ;;
esac
if [ "$mode" != run ] && [ $# -gt 0 ]; then
  echo "usage: $0 [PACKAGE...] | --unless-verified | --record" >&2; exit 2
fi
if [ "$mode" = check ]; then
  key=$(inputs_key)
  if [ "$key" != dirty ] && [ -f "$record_file" ] && grep -qx "key $key" "$record_file"; then
    echo "mutants: skipped: chacha-core, its tests, its dependencies, the build settings and the exclusions"
    echo "are the ones every mutant was caught on ($record_file):"
    sed 's/^/  /' "$record_file"
    exit 0
  fi
  echo "mutants: chacha-core's inputs (key $key) are not the recorded ones: every mutant runs"
fi

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
if [ "$mode" = record ]; then
  key=$(inputs_key)
  [ "$key" != dirty ] || { echo "mutants: not recorded: commit the inputs first (${key_inputs[*]} Cargo.lock Cargo.toml)" >&2; exit 1; }
  caught=$(wc -l <target/mutants/mutants.out/caught.txt)
  timeouts=$(wc -l <target/mutants/mutants.out/timeout.txt)
  {
    echo "key $key"
    echo "commit $(git rev-parse --short=12 HEAD): $caught mutants caught, $timeouts by the timeout, none missed (cargo-mutants $(cargo mutants --version | awk '{print $2}'))"
    echo "on $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), $(date -u +%Y-%m-%d)"
  } >"$record_file"
  echo "mutants: recorded in $record_file; commit it"
fi
