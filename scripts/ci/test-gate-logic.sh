#!/usr/bin/env bash
# test-gate-logic.sh — the gate's CPU logic on CPUs this machine is not: fake
# /proc/cpuinfo answers (CHACHA_CPUINFO) for each kind these machines have been, and what
# scripts/ci/cpu-backends.sh and .ci/run must make of them. The .ci/run stage "gate logic".
#
# Checked: the backends each CPU runs (an AVX-512 CPU without VL or BW runs no avx512, as
# the module's detection requires all three), `--has` and `--why`, and that .ci/run under a
# fake AVX2-only CPU skips the pinned avx512 suite with its reason while a fake AVX-512 CPU
# would run it (`--list` and a stage whose body only skips: nothing is built).
set -euo pipefail
cd "$(dirname "$0")/../.."

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failures=0
check() { # check WHAT WANT GOT
  if [ "$2" = "$3" ]; then echo "ok: $1: $3"; else echo "FAIL: $1: want '$2', got '$3'" >&2; failures=$((failures + 1)); fi
}
fake() { # fake NAME FLAGS-LINE-KEY FLAGS
  printf 'processor\t: 0\nvendor_id\t: fake\nmodel name\t: %s\n%s\t\t: %s\n\nprocessor\t: 1\n%s\t\t: %s\n' \
    "$1" "$2" "$3" "$2" "$3" >"$dir/$1"
  echo "$dir/$1"
}
base='fpu sse sse2 ssse3 sse4_1 sse4_2 pclmulqdq'
zen3=$(fake zen3 flags "$base avx fma bmi1 avx2 bmi2 adx sha_ni vaes")
zen4=$(fake zen4 flags "$base avx fma avx2 bmi2 adx avx512f avx512dq avx512ifma avx512cd avx512bw avx512vl avx512vbmi")
f_only=$(fake avx512f-only flags "$base avx avx2 avx512f avx512cd")
no_avx2=$(fake sandy flags "$base avx")
arm=$(fake neoverse Features "fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics")

run() { CHACHA_CPUINFO=$1 scripts/ci/cpu-backends.sh "${@:2}"; }
check "Zen 3 (AVX2, no AVX-512)" soft,sse2,avx2 "$(run "$zen3")"
check "Zen 4 / Xeon (AVX-512 F, VL, BW)" soft,sse2,avx2,avx512 "$(run "$zen4")"
check "AVX-512 F without VL/BW" soft,sse2,avx2 "$(run "$f_only")"
check "AVX without AVX2" soft,sse2 "$(run "$no_avx2")"
check "aarch64 with asimd" soft,neon "$(run "$arm")"
check "--has avx512 on Zen 3" 1 "$(run "$zen3" --has avx512 && echo 0 || echo 1)"
check "--has avx512 on Zen 4" 0 "$(run "$zen4" --has avx512 && echo 0 || echo 1)"
check "--why avx512 on Zen 3" "no AVX-512 F/VL/BW here" "$(run "$zen3" --why avx512)"
check "--why avx2 on Zen 3" "" "$(run "$zen3" --why avx2)"
check "an unreadable cpuinfo" 2 "$(run "$dir/none" 2>/dev/null && echo 0 || echo $?)"

# .ci/run under the fake CPUs: the stage list is the same on both (a skip is printed, not
# a stage dropped), and the pinned avx512 suite says why it skipped on the AVX2-only one.
unset CHACHA_EXPECT_BACKENDS
check "the stage list does not depend on the CPU" \
  "$(CHACHA_CPUINFO=$zen4 bash .ci/run --list | md5sum)" "$(CHACHA_CPUINFO=$zen3 bash .ci/run --list | md5sum)"
out=$(CHACHA_CPUINFO=$zen3 bash .ci/run --only 'forced backend: avx512')
check "forced avx512 on Zen 3: the skip and its reason" 2 \
  "$(grep -c -e '^skipped here: no AVX-512 F/VL/BW here$' -e '^forced backend: avx512: no AVX-512 F/VL/BW here$' <<<"$out")"
check "forced avx512 on Zen 3: the summary names the CPU's backends" 1 \
  "$(grep -c 'it runs soft,sse2,avx2)$' <<<"$out")"

if ((failures)); then echo "gate logic: $failures check(s) failed" >&2; exit 1; fi
echo "gate logic: every check passed"
