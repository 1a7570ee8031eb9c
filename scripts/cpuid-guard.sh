#!/usr/bin/env bash
# No constructor or call of the fronts executes CPUID after the first, or calls a probe out
# of line: runs
# chacha-cpuid-guard (cpuid-guard/src/main.rs), which calls every public entry point once,
# then makes CPUID fault (Linux's arch_prctl(ARCH_SET_CPUID)) and calls them all again; a
# CPUID kills it with SIGSEGV. First its control, which executes one CPUID after arming,
# must die so: the guard is shown to be able to fail.
#
# Where the kernel refuses CPUID faulting (the CPU or the hypervisor lacks it), or with
# `--gdb`, the same program runs under gdb instead, with a breakpoint on every CPUID
# instruction of the binary (objdump finds them) set once the warm-up is over; a hit fails.
# gdb is installed with apt if missing. x86_64 Linux only.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(uname -m)" != x86_64 ]; then
  echo "cpuid-guard: x86_64 only (this is $(uname -m))" >&2; exit 1
fi
mode=fault
[ "${1:-}" = --gdb ] && mode=gdb

# Not position-independent, so that the addresses objdump prints are the ones gdb sees.
export CARGO_TARGET_DIR=target/cpuid-guard
RUSTFLAGS="-C relocation-model=static" cargo build -q --release -p chacha-cpuid-guard
bin=$CARGO_TARGET_DIR/release/chacha-cpuid-guard
log=$(mktemp)
trap 'rm -f "$log" "$log.gdb"' EXIT

# The probes' cached answers are read inline (`Backend::detect`'s promise: a few loads per
# constructor): a call to a backend's out-of-line `detect` is a call per constructor, as
# `Avx2::detect` was on every CPU without AVX-512. Static relocation, so calls name their
# targets.
calls=$(objdump -d --no-show-raw-insn -C "$bin" | grep -E 'call .*<chacha_backends::[a-z0-9_]+::[A-Za-z0-9]+::detect>' || true)
if [ -n "$calls" ]; then
  echo "$calls" | sort | uniq -c >&2
  echo "cpuid-guard FAILED: the calls above reach a backend's detect() out of line" >&2
  exit 1
fi
echo "no out-of-line call to a backend's detect()"

if [ $mode = fault ]; then
  set +e
  "$bin" --control >"$log" 2>&1
  rc=$?
  set -e
  case $rc in
    139) echo "control: one CPUID after arming killed the process (SIGSEGV), as it must" ;;
    2) cat "$log"; echo "cpuid-guard: no CPUID faulting here; counting CPUIDs with gdb instead"; mode=gdb ;;
    *) cat "$log" >&2; echo "cpuid-guard: the control exited $rc; it must die of SIGSEGV" >&2; exit 1 ;;
  esac
fi
if [ $mode = fault ]; then
  if ! "$bin"; then
    echo "cpuid-guard FAILED: a public entry point executed CPUID after the first call (SIGSEGV above)" >&2
    exit 1
  fi
  exit 0
fi

if ! command -v gdb >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gdb >/dev/null
fi
armed=$(nm -C "$bin" | awk '$3 == "chacha_cpuid_guard::calls::armed" { print $1 }')
mapfile -t sites < <(objdump -d --no-show-raw-insn "$bin" | awk '$2 == "cpuid" { sub(":", "", $1); print $1 }')
[ -n "$armed" ] || { echo "cpuid-guard: no symbol calls::armed in $bin" >&2; exit 1; }
((${#sites[@]})) || { echo "cpuid-guard: objdump found no CPUID in $bin: nothing would be caught" >&2; exit 1; }
{
  echo "set pagination off"
  echo "set confirm off"
  echo "break *0x$armed"
  echo "run --gdb"
  for s in "${sites[@]}"; do echo "break *0x$s"; done
  echo "continue"
  echo "bt 8"
} >"$log.gdb"
run_gdb() { gdb -q -batch -x "$log.gdb" --args "$bin" >"$log" 2>&1 || true; }
# Breakpoint 1 is `armed`; any other one reached is a CPUID.
hit='^Breakpoint ([2-9]|[1-9][0-9]+), 0x'

# The control: under gdb, `--control` executes its CPUID after `armed`.
sed -i 's/^run --gdb$/run --gdb --control/' "$log.gdb"
run_gdb
grep -Eq "$hit" "$log" ||
  { cat "$log" >&2; echo "cpuid-guard (gdb): the control's CPUID hit no breakpoint" >&2; exit 1; }
echo "control (gdb): the CPUID after arming hit a breakpoint, as it must"
sed -i 's/^run --gdb --control$/run --gdb/' "$log.gdb"
run_gdb
if grep -Eq "$hit" "$log"; then
  cat "$log" >&2
  echo "cpuid-guard FAILED (gdb): a public entry point executed CPUID after the first call (backtrace above)" >&2
  exit 1
fi
grep -q "^no CPUID in" "$log" || { cat "$log" >&2; echo "cpuid-guard (gdb): the program did not finish" >&2; exit 1; }
grep "^no CPUID in" "$log"
echo "(${#sites[@]} CPUID instructions in the binary, each a breakpoint)"
