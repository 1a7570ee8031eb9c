#!/usr/bin/env bash
# The kernel decisions that were measured on one CPU and are open on the other, measured
# again on this one:
#
#   benches/scripts/decisions.sh              # every decision below (seconds each)
#   benches/scripts/decisions.sh --list       # the table; checks each revision exists
#   benches/scripts/decisions.sh --report N   # also N runs of the report, and targets.sh
#   benches/scripts/decisions.sh --samples N  # calls per tree and size [ab.sh's 2000]
#
# The machines this project runs on have one of several CPUs (Intel Xeon Emerald Rapids,
# an Intel Xeon reporting family 6 model 167, AMD EPYC Zen 4; chacha-backends/DECISIONS.md,
# "Machine facts", and benches/README.md), and a session gets whichever it gets. Code that
# lost on one of them was removed but kept in history, so that a session on the other can
# time it against today's: each line of DECISIONS is that revision, the backend, the
# `ab.sh` operations and sizes, and what the working tree chose. For each the script runs
# `ab.sh REV BACKEND OPS SIZES` and prints the per-call ratio base/work at the median and
# the 90th percentile: 1.02 or more, today's code is faster here too; 0.98 or less, the
# removed code is faster on this CPU: port it onto today's loop and measure again before
# deciding (the old revisions also lack later changes around their loops; see
# benches/README.md, `ab.sh`). A median alone does not decide the extra blocks in
# general-purpose registers: they win while the core's other hardware thread is idle and
# lose while it is busy, so run this more than once, minutes apart, and read the 90th
# percentile too. chacha-backends/DECISIONS.md has the figures that decided each choice
# (its section "Open on another CPU" maps each line below to its section).
set -euo pipefail

# revision | backend | ops | sizes | what the working tree chose (over the revision's code)
DECISIONS=(
  "dfe5cf9|avx2|xor|16384,1048576|8-block loop without a ninth block in general-purpose registers (Intel EMR: +10% with the core's other hardware thread idle, -22% with it busy; AMD EPYC Zen 4, today's tree with the head: no difference to 1.21x faster)"
  "3bb2254|avx512|xor|16384,1048576|16-block loop without a 17th block in general-purpose registers (Intel EMR: 0-6% faster when quiet, 0.69-0.98x OpenSSL in sustained runs; the Zen 4 prototype of DECISIONS.md's machine facts +4%; AMD EPYC Zen 4, today's tree with the head: 1.06-1.31x faster)"
  "3285df3|avx512|xor|16,64|one-chain rows: vprold steps on Intel, split rotates (the revision's form) on AMD Zen 4, chosen by detect (Intel EMR: split 0.75x; AMD EPYC Zen 4: split 1.13-1.25x, so there this line compares split with split)"
  "10bb251|avx512|xor,fill|16384,1048576|16-block sets after the first start from the counter-free head, the column chain a set early (Intel family 6 model 167: xor 1.08 at 16 KiB, 1.04-1.10 at 1 MiB; AMD EPYC Zen 4: xor and fill 1.02-1.05; EMR not measured)"
  "10bb251|avx2|xor,fill|16384,1048576|8-block sets from the head, as avx512 (Intel family 6 model 167: xor 1.07 at 16 KiB, 1.07-1.08 at 1 MiB; AMD EPYC Zen 4: xor and fill 1.06; EMR not measured)"
  "124380e|avx2|fresh,rng,warm|128,256,384,448,512,1024|the round count a constant, one instance per count, over the revision's run-time count (ee10fe4 with rows6 two double rounds a pass and sliced8's 7-block call site; reverted by the next commit; AMD EPYC Zen 4: the revision 1.01-1.12x faster at fresh 128-512 B, 0.983-0.992x at rng 128-256 B, 0.993-0.998x at rng 1-16 KiB; Intel not measured)"
  "1fdfd48|avx512|warm,warm-xchacha|64,100,200|a cipher's batches through fill_batch, a small kernel of their own, over the revision's avx512::run fill instance (for the binary: 1.28x -> 1.19x the published crate's; AMD EPYC Zen 4: 0.991-1.014 at 32-200 B; Intel not measured)"
  "1fdfd48|avx2|warm,warm-xchacha|64,100,200|the same on avx2, over the revision's fill_avx2 (AMD EPYC Zen 4: 1.000-1.026; Intel not measured)"
)

root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
mode=run
reports=0
samples=2000
while [ $# -gt 0 ]; do
  case "$1" in
    --list) mode=list; shift ;;
    --report|--samples)
      [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || { echo "decisions: $1 needs a count" >&2; exit 2; }
      if [ "$1" = --report ]; then reports=$2; else samples=$2; fi
      shift 2 ;;
    -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
    *) echo "decisions: unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done

missing=0
for d in "${DECISIONS[@]}"; do
  IFS='|' read -r rev backend ops sizes chose <<< "$d"
  if ! git -C "$root" rev-parse --verify --quiet "$rev^{commit}" > /dev/null; then
    echo "decisions: revision $rev is not in this clone's history" >&2
    missing=1
  fi
  [ "$mode" = list ] && printf '%s %-6s %-5s %-14s %s\n' "$rev" "$backend" "$ops" "$sizes" "$chose"
done
[ "$missing" = 0 ] || exit 1
[ "$mode" = list ] && exit 0

log=$(mktemp "${TMPDIR:-/tmp}/chacha-decisions.XXXXXX")
trap 'rm -f "$log"' EXIT
for d in "${DECISIONS[@]}"; do
  IFS='|' read -r rev backend ops sizes chose <<< "$d"
  echo
  echo "== $rev $backend: today: $chose"
  # A decision for a backend this CPU cannot run (avx512 on an AVX2-only AMD EPYC Zen 3)
  # waits for a session on a CPU that has it.
  if ! "$root/scripts/ci/cpu-backends.sh" --has "$backend"; then
    echo "   skipped: $("$root/scripts/ci/cpu-backends.sh" --why "$backend")"
    continue
  fi
  # ab.sh's build output (old revisions warn about code later removed) only if it fails.
  out=$("$root/benches/scripts/ab.sh" "$rev" "$backend" "$ops" "$sizes" 20 "$samples" 2> "$log") || { cat "$log" >&2; exit 1; }
  echo "$out"
  echo "$out" | awk '/base\/work p10/ {
    med = $0; sub(/.*base\/work p10 [0-9.]+ med /, "", med); sub(/ .*/, "", med)
    p90 = $0; sub(/.* p90 /, "", p90)
    verdict = "no difference here (within 2%)"
    if (med + 0 >= 1.02) verdict = "today'"'"'s code faster here"
    if (med + 0 <= 0.98) verdict = "the removed code faster here"
    printf "   %s %s B: base/work median %s (90th percentile %s): %s\n", $2, $4, med, p90, verdict }'
done

if [ "$reports" -gt 0 ]; then
  echo
  csvs=()
  for i in $(seq 1 "$reports"); do
    out_dir=$root/target/decisions-report$i
    (cd "$root" && cargo run --release -q -p chacha-bench -- --out "$out_dir" > /dev/null)
    csvs+=("$out_dir/report.csv")
  done
  "$root/benches/scripts/targets.sh" "${csvs[@]}"
fi
