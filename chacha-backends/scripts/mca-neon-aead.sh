#!/usr/bin/env bash
# The neon stitched AEAD on paper: `llvm-mca` cycles per 512 bytes of our stitched set
# (`src/neon/aead.rs`, from the aarch64 release build) beside ring 0.17's pregenerated
# `chacha20_poly1305_armv8` seal loop (320 bytes an iteration, scaled to 512), under the
# same ARM core models. No ARM hardware measures here: see DECISIONS.md, § neon: the
# stitched AEAD, for what the models are and are not.
#
# usage: mca-neon-aead.sh [CPU...]     (default: neoverse-n1 apple-m1; any -mcpu of llvm-mca)
#        MCA_KEEP=DIR mca-neon-aead.sh   also leaves the two inputs, DIR/ours.s and DIR/ring.s,
#                                        for llvm-mca's other views (-bottleneck-analysis, ...)
#
# Needs the aarch64 target (rustup), Debian's gcc-aarch64-linux-gnu (linker, objdump),
# llvm (llvm-mca) and ring 0.17.14 in the cargo registry (a dependency of the report, benches/:
# `cargo fetch` brings it). Builds into target/mca-neon.
#
# Our set: the per-set path of `sets_neon` (the stitched branch of its loop: the words,
# the `asm!` loop of 5 double rounds and 16 Poly1305 steps taken twice, `h·r^16 + second`,
# the feed-forward, transposes and XOR), cut from the disassembly at its branches; ring's
# iteration: the floor section's cut (DECISIONS.md, § The floor: reproducing). Branches,
# calls and labels are dropped; mca runs the straight line 20 times.
set -euo pipefail
cd "$(dirname "$0")/../.."
cpus=("$@")
((${#cpus[@]})) || cpus=(neoverse-n1 apple-m1)
export CARGO_TARGET_DIR="$PWD/target/mca-neon"
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

bin=$(cargo test --release --target aarch64-unknown-linux-gnu -p chacha-backends --features aead \
  --test poly1305 --no-run --message-format=json 2>/dev/null |
  sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1)
[ -n "$bin" ] || { echo "could not build the aarch64 test binary" >&2; exit 1; }
aarch64-linux-gnu-objdump -d -C --no-show-raw-insn "$bin" >"$work/all.dis"
# The first `sets_neon` (both directions have the same set path).
awk '/^[0-9a-f]+ <chacha_backends::neon::aead::sets_neon>:$/ { n++ } n == 1 { print } n == 1 && /^$/ { exit }' \
  "$work/all.dis" >"$work/sets.dis"
[ -s "$work/sets.dis" ] || { echo "no sets_neon in $bin" >&2; exit 1; }

# Instructions only, no branches or calls, comments and symbols dropped.
clean() {
  grep -P '^\s+[0-9a-f]+:\t' | awk -F'\t' '{ print $2 "\t" $3 }' |
    grep -vP '^(b|bl|b\.[a-z]+|cbz|cbnz|tbz|tbnz|ret)\t' | sed 's@//.*@@; s@<[^>]*>@@'
}
addr() { grep -P '^\s+[0-9a-f]+:\t' | awk -F'\t' '{ sub(/:$/, "", $1); gsub(/ /, "", $1); print $1 }'; }
line_of() { grep -nP "^\s+$1:\t" "$work/sets.dis" | cut -d: -f1; }
# The `asm!` loop: the backward `b.ne` whose body holds the `umulh`s.
read -r loop_end loop_start < <(grep -P '\tb\.ne\t' "$work/sets.dis" |
  awk -F'\t' '{ sub(/:$/, "", $1); gsub(/ /, "", $1); split($3, t, " "); print $1, t[1] }' |
  while read -r from to; do
    [ $((16#$from)) -gt $((16#$to)) ] || continue
    if sed -n "$(line_of "$to"),$(line_of "$from")p" "$work/sets.dis" | grep umulh >/dev/null; then
      echo "$from $to"
      break
    fi
  done)
[ -n "${loop_start:-}" ] || { echo "no stitched loop found in sets_neon" >&2; exit 1; }
# The set loop's test: the backward `tbnz` into the stitched branch, which starts there.
read -r test_at entry < <(grep -P '\ttbnz\t' "$work/sets.dis" |
  awk -F'\t' '{ sub(/:$/, "", $1); gsub(/ /, "", $1); n = split($3, t, "[ ,]+"); print $1, t[n - 1] }' |
  while read -r from to; do [ $((16#$from)) -gt $((16#$to)) ] && echo "$from $to" && break; done)
[ -n "${entry:-}" ] || { echo "no set loop found in sets_neon" >&2; exit 1; }
{
  sed -n "$(line_of "$entry"),$(($(line_of "$loop_start") - 1))p" "$work/sets.dis" | clean
  for _ in 1 2; do sed -n "$(line_of "$loop_start"),$(line_of "$loop_end")p" "$work/sets.dis" | clean; done
  sed -n "$(($(line_of "$loop_end") + 1)),$(line_of "$test_at")p" "$work/sets.dis" | clean
} >"$work/ours.s"

ring=$(ls -d ~/.cargo/registry/src/*/ring-0.17.14/pregenerated 2>/dev/null | head -n 1)
A=$ring/chacha20_poly1305_armv8-linux64.S
[ -f "$A" ] || { echo "ring 0.17.14 is not in the cargo registry (cargo fetch)" >&2; exit 1; }
# Ring's seal loop: the words (474-494), 10 x (a double round with one Poly1305 step,
# 497-696, and a second step, 699-728), then the feed-forward, transposes and XOR (732-849).
{
  sed -n 474,494p "$A" | grep -v 'adrp\|lo12'
  for _ in $(seq 10); do sed -n 497,696p "$A"; sed -n 699,728p "$A"; done
  sed -n 732,849p "$A"
} | grep -v '^\.\|^\s*b\.\|^\s*b\s\|^\s*//' >"$work/ring.s"

mca() { llvm-mca -mtriple=aarch64 -mcpu="$1" -iterations=20 "$2" 2>/dev/null; }
field() { sed -n "s/^$1: *//p"; }
printf '%-14s %-6s %12s %12s %12s %16s\n' cpu code "instr/iter" "uops/iter" "cycles/iter" "cycles/512B"
for cpu in "${cpus[@]}"; do
  for code in ours ring; do
    out=$(mca "$cpu" "$work/$code.s")
    it=$(echo "$out" | field Iterations)
    ins=$(echo "$out" | field Instructions)
    uops=$(echo "$out" | field 'Total uOps')
    cyc=$(echo "$out" | field 'Total Cycles')
    bytes=$([ "$code" = ours ] && echo 512 || echo 320)
    printf '%-14s %-6s %12d %12d %12d %16.0f\n' "$cpu" "$code" $((ins / it)) $((uops / it)) $((cyc / it)) \
      "$(echo "$cyc / $it * 512 / $bytes" | bc -l)"
  done
done
echo "(ours: one 512-byte set; ring: one 320-byte iteration, scaled)"
if [ -n "${MCA_KEEP:-}" ]; then
  mkdir -p "$MCA_KEEP"
  cp "$work/ours.s" "$work/ring.s" "$MCA_KEEP/"
fi
