#!/usr/bin/env bash
# Fails if a `core::arch` intrinsic was left as an out-of-line call in BINARY, if a closure
# of a SIMD backend module named in BACKENDS was (or a `core::array` helper called from one),
# or if such a module has no vector code in BINARY at all (so the check can never pass by
# looking at nothing).
#
# Why: an intrinsic whose target feature the calling function does not enable is not
# inlined; it becomes a `call` per instruction, 2-4x slower (the published chacha20 crate's
# AVX-512 backend calls `_mm_rol_epi32` so). Every `#[target_feature]` entry point must
# enable every feature of every intrinsic it inlines; this check proves it on the build.
#
# usage: check-intrinsics-inlined.sh BINARY [BACKEND...]   (BACKEND: sse2 avx2 avx512 neon)
#
# BINARY is an x86 / x86_64 or an AArch64 ELF file (the latter disassembled with Debian's
# `aarch64-linux-gnu-objdump`, package binutils-aarch64-linux-gnu, which comes with
# gcc-aarch64-linux-gnu).
set -euo pipefail
bin=${1:?usage: $0 BINARY [BACKEND...]}
shift
case $(LC_ALL=C readelf -h "$bin" | sed -n 's/^ *Machine: *//p') in
  *AArch64*) objdump=aarch64-linux-gnu-objdump calls='bl|b' ;;
  *) objdump=objdump calls='call|jmp' ;;
esac
command -v "$objdump" >/dev/null || { echo "$objdump (binutils) is needed" >&2; exit 1; }
dis=$(mktemp)
trap 'rm -f "$dis"' EXIT
"$objdump" -d -C --no-show-raw-insn "$bin" >"$dis"

status=0
# The CPU probes' `cpuid`/`xgetbv` run once per process and may stay out of line.
# Only a call *to* a `core::arch` function counts: a function of ours generic over a vector
# type (`<… as Put<core::core_arch::x86::__m512i>>::put`) is not one.
# Calls made by the peers' code in the bench binary do not count: the published `poly1305`
# crate (under chacha20poly1305) leaves AVX2 intrinsics out of line, which is its own cost.
peers='^<?poly1305::'
calls=$(awk -v calls="^($calls)$" '
          /^[0-9a-f]+ <.*>:$/ { fn = substr($0, index($0, "<") + 1); sub(/>:$/, "", fn); next }
          $2 ~ calls && $0 ~ /[0-9a-f]+ <(core::core_arch::|_ZN4core9core_arch)/ { print fn "\t" $0 }' "$dis" |
        grep -vE "$peers" | cut -f2- |
        grep -vE '::(_xgetbv|__cpuid|__cpuid_count)(>|17h)' |
        sed -E 's/^.*<(.*)>.*$/\1/' | sort | uniq -c | sort -rn || true)
if [ -n "$calls" ]; then
  echo "FAIL: core::arch intrinsics called out of line in $bin:"
  echo "$calls" | head -20
  status=1
fi

# Each named backend must have functions of its own module in the binary, with the
# registers of its width in them (a regular expression: `%xmm`, or `v12.4s` on AArch64).
for backend in "$@"; do
  case $backend in
    sse2) reg='%xmm' ;;
    avx2) reg='%ymm' ;;
    avx512) reg='%zmm' ;;
    neon) reg='[[:space:],{]v[0-9]+[.]' ;;
    *) echo "unknown backend $backend" >&2; exit 2 ;;
  esac
  n=$(awk -v mod="chacha_backends::$backend::" -v reg="$reg" '
        /^[0-9a-f]+ <.*>:$/ { inside = index($0, mod) > 0; next }
        inside && $0 ~ reg { n++ }
        END { print n + 0 }' "$dis")
  if [ "$n" -lt 100 ]; then
    echo "FAIL: only $n instructions on $reg registers in chacha_backends::$backend functions of $bin"
    status=1
  else
    echo "ok: $backend: $n instructions on $reg registers in chacha_backends::$backend functions"
  fi
done
# A closure of a SIMD module left out of line, or a `core::array` function (`map`,
# `from_fn`, ... holding such a closure) called from one, means vectors went through memory
# around a call: closures inherit the target features, `core::array` does not, and where
# LLVM keeps `array::map` out of line its closure stays out of line too (seen: a 2-block
# AVX-512 row store, each row stored, a call per row, reloaded).
for backend in "$@"; do
  found=$(awk -v mod="chacha_backends::$backend::" '
            /^[0-9a-f]+ <.*>:$/ {
              inside = index($0, mod) > 0
              if (inside && index($0, "{{closure}}") > 0) print "closure out of line: " $0
              next
            }
            inside && $0 ~ /<core::array::/ { print "call into core::array: " $0 }' "$dis" |
          sed -E 's/^(.{0,200}).*$/\1/' | sort | uniq -c | head -10)
  if [ -n "$found" ]; then
    echo "FAIL: $backend: closures or core::array helpers out of line in $bin:"
    echo "$found"
    status=1
  else
    echo "ok: $backend: no closure of its own and no core::array helper out of line"
  fi
done
[ "$status" = 0 ] && echo "ok: no core::arch intrinsic called out of line in $(basename "$bin")"
exit "$status"
