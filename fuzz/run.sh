#!/usr/bin/env bash
# Runs the fuzz targets for a while each, from the committed seed corpus.
#
#   fuzz/run.sh SECONDS [TARGET...]      (default: every target: backends cipher_api rng aead secretstream)
#
# Checks that the committed corpus is what `src/bin/seed-corpus.rs` writes, installs
# cargo-fuzz if it is missing, builds the targets once (nightly, AddressSanitizer,
# optimised, with debug assertions and so overflow checks: an arithmetic overflow on a
# hostile position is a crash), then runs each for SECONDS on a scratch copy of
# corpus/<target>/ (so runs never grow the committed corpus), two targets at a time, and
# prints, per target, the executions from libFuzzer's final "Done N runs in S second(s)"
# line and the wall time. Exits non-zero on a crash, leak or timeout (the input is in
# fuzz/artifacts/<target>/; the command to replay it is printed).
#
# Environment: FUZZ_TOOLCHAIN (default nightly), FUZZ_SCRATCH (scratch directory, default a
# new temporary one), FUZZ_ARGS (more libFuzzer flags, e.g. "-jobs=1" or "-seed=1").
set -euo pipefail
cd "$(dirname "$0")"

if [ $# -lt 1 ] || ! [[ $1 =~ ^[0-9]+$ ]]; then
  echo "usage: $0 SECONDS [TARGET...]" >&2
  exit 2
fi
seconds=$1
shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(backends cipher_api rng aead secretstream)
toolchain=${FUZZ_TOOLCHAIN:-nightly}
read -r -a extra <<<"${FUZZ_ARGS:-}"

if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "installing cargo-fuzz"
  start=$SECONDS
  # --debug: a tool that only drives cargo needs no optimisation, and builds in about half
  # the time (23 s against 41 s here).
  cargo install cargo-fuzz --version 0.13.2 --locked --debug
  echo "cargo-fuzz installed in $((SECONDS - start)) s"
fi

# A seed corpus that no longer matches its generator (a target's input layout changed)
# would fuzz from meaningless seeds: fail instead.
# (A debug build: it compiles in half the time of a release one, and the check is instant.)
cargo run --quiet --bin seed-corpus -- --check

start=$SECONDS
for target in "${targets[@]}"; do
  [ -d "corpus/$target" ] || { echo "no target $target (no corpus/$target)" >&2; exit 2; }
  cargo "+$toolchain" fuzz build -O -a "$target"
done
echo "built ${targets[*]} in $((SECONDS - start)) s"

scratch=${FUZZ_SCRATCH:-$(mktemp -d)}
# fuzz_one TARGET: runs it for $seconds on a scratch copy of its corpus; writes its summary
# line to $scratch/TARGET.summary, or prints the failure and returns 1.
fuzz_one() {
  local target=$1 log start took runs corpus
  rm -rf "${scratch:?}/$target"
  mkdir -p "$scratch/$target"
  cp -r "corpus/$target/." "$scratch/$target/"
  log="$scratch/$target.log"
  start=$SECONDS
  echo "::: fuzzing $target for $seconds s"
  if ! cargo "+$toolchain" fuzz run -O -a "$target" "$scratch/$target" -- \
      -max_total_time="$seconds" -timeout=10 -max_len=4096 -print_final_stats=1 "${extra[@]}" >"$log" 2>&1; then
    tail -n 60 "$log" >&2
    echo "FUZZ FAILURE in $target after $((SECONDS - start)) s; full log: $log" >&2
    echo "replay: (cd fuzz && cargo +$toolchain fuzz run -O -a $target artifacts/$target/<file>)" >&2
    return 1
  fi
  took=$((SECONDS - start))
  runs=$(grep -Eo 'Done [0-9]+ runs' "$log" | tail -n 1 | grep -Eo '[0-9]+' || true)
  [ -n "$runs" ] || { tail -n 30 "$log" >&2; echo "no final stats line from $target" >&2; return 1; }
  corpus=$(find "$scratch/$target" -type f | wc -l)
  printf '%-12s %12s executions %8s exec/s  %5d s  corpus %d files\n' \
    "$target" "$runs" "$((runs / (seconds > 0 ? seconds : 1)))" "$took" "$corpus" >"$scratch/$target.summary"
}
# Two at a time: a libFuzzer process runs on one thread, so a second keeps the other core busy.
lane() {
  local i
  for ((i = $1; i < ${#targets[@]}; i += 2)); do fuzz_one "${targets[i]}" || return 1; done
}
lane 0 &
lane0=$!
status=0
lane 1 || status=1
wait "$lane0" || status=1
[ "$status" = 0 ] || exit 1
summary=()
for target in "${targets[@]}"; do summary+=("$(cat "$scratch/$target.summary")"); done

echo "::: fuzz summary ($seconds s per target)"
printf '%s\n' "${summary[@]}"
