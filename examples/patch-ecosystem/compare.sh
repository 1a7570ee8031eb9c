#!/usr/bin/env bash
# Builds this project twice — as it is (with the `[patch.crates-io]` entry: our chacha20)
# and as a copy without the patch (the published chacha20 0.10 from crates.io) — runs the
# `speed` binary of each in turn three times, and prints the median ns per operation of
# each build and the speed-up. Prints the CPU too: the figures mean nothing without it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The unpatched copy: no [patch] section, no direct chacha20 dependency, no checks binary.
mkdir -p "$work/unpatched/src/bin"
cp "$here/src/bin/speed.rs" "$work/unpatched/src/bin/"
echo 'fn main() {}' >"$work/unpatched/src/main.rs"
sed -e '/^\[patch.crates-io\]/,/^$/d' -e '/^chacha20 = /d' "$here/Cargo.toml" >"$work/unpatched/Cargo.toml"

(cd "$here" && cargo build -q --release --bin speed)
(cd "$work/unpatched" && CARGO_TARGET_DIR="$work/target" cargo build -q --release --bin speed)
grep -q 'registry' <(cd "$work/unpatched" && cargo tree -q -i chacha20 --depth 0 -e normal 2>/dev/null; grep -A2 'name = "chacha20"' Cargo.lock) ||
  { echo "the unpatched copy does not use the registry chacha20" >&2; exit 1; }

echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
for round in 1 2 3; do
  "$here/target/release/speed" | sed 's/^/patched /'
  "$work/target/release/speed" | sed 's/^/published /'
done >"$work/runs"

python3 - "$work/runs" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    build, name, ns = line.split()
    runs.setdefault(name, {}).setdefault(build, []).append(float(ns))
print(f"{'workload':<18} {'published ns':>13} {'patched ns':>11} {'speed-up':>9}")
for name, by in runs.items():
    p, o = statistics.median(by["published"]), statistics.median(by["patched"])
    print(f"{name:<18} {p:>13.1f} {o:>11.1f} {p / o:>8.2f}x")
PY
