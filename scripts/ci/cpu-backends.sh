#!/usr/bin/env bash
# cpu-backends.sh — the backends this CPU runs, as a comma-separated list in the table's
# order (soft first), read from /proc/cpuinfo's flags:
#
#   scripts/ci/cpu-backends.sh              e.g. soft,sse2,avx2          (AMD EPYC Zen 3)
#                                           or   soft,sse2,avx2,avx512   (Zen 4, Intel Xeon)
#   scripts/ci/cpu-backends.sh --has NAME   exit 0 if NAME is among them, 1 if not
#   scripts/ci/cpu-backends.sh --why NAME   one line: why NAME is missing (empty if present)
#
# The gate (.ci/run) expects exactly these in every suite (CHACHA_EXPECT_BACKENDS) and runs
# the stages that need AVX-512 only where it is listed. The list comes from the kernel's
# view of the CPU, not from the crate's own detection: a backend that drops out of
# `available()` (a wrong feature name, a broken probe) still fails the tests.
#
# Each backend needs what its module detects (chacha-backends/src/*.rs, `cpufeatures::new!`):
#   sse2    sse2
#   avx2    avx2
#   avx512  avx512f, avx512vl, avx512bw (IFMA is the AEAD's own choice inside avx512)
#   neon    asimd (aarch64's "Features" line)
#
# CHACHA_CPUINFO names another file to read: scripts/ci/test-gate-logic.sh feeds fake CPUs
# through it, so the logic is checked on a machine that has only one kind.
set -euo pipefail

cpuinfo=${CHACHA_CPUINFO:-/proc/cpuinfo}
[ -r "$cpuinfo" ] || { echo "cpu-backends: cannot read $cpuinfo" >&2; exit 2; }
# The first processor's flags (x86: "flags", aarch64: "Features"); every core of these
# machines is the same.
flags=" $(awk -F': *' '/^(flags|Features)[[:space:]]*:/ { print $2; exit }' "$cpuinfo") "

has_flags() {
  local f
  for f in "$@"; do [[ $flags == *" $f "* ]] || return 1; done
}

# backend | the flags it needs | what to say when they are missing
table=(
  "sse2|sse2|no SSE2 here"
  "avx2|avx2|no AVX2 here"
  "avx512|avx512f avx512vl avx512bw|no AVX-512 F/VL/BW here"
  "neon|asimd|no NEON (asimd) here"
)

list=soft
declare -A why=()
for row in "${table[@]}"; do
  IFS='|' read -r name need reason <<<"$row"
  # shellcheck disable=SC2086 # the flags are words on purpose
  if has_flags $need; then list+=",$name"; else why[$name]=$reason; fi
done

case ${1:-} in
  "") echo "$list" ;;
  --has)
    [ $# -eq 2 ] || { echo "usage: $0 [--has NAME | --why NAME]" >&2; exit 2; }
    [[ ",$list," == *",$2,"* ]] ;;
  --why)
    [ $# -eq 2 ] || { echo "usage: $0 [--has NAME | --why NAME]" >&2; exit 2; }
    [[ ",$list," == *",$2,"* ]] || echo "${why[$2]:-$2 is not a backend}" ;;
  *) echo "usage: $0 [--has NAME | --why NAME]" >&2; exit 2 ;;
esac
