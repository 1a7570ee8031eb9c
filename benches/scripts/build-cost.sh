#!/usr/bin/env bash
# What depending on us costs a user's build, against the published chacha20 0.10.2:
#
#   benches/scripts/build-cost.sh [RUNS] [TREE]     [default RUNS: 3, TREE: this checkout]
#
# TREE is the source tree whose chacha20 is "ours" (e.g. an older revision unpacked with
# `git archive REV | tar -x -C DIR`).
# chacha20/examples/drop_in.rs (the drop-in example, as .ci/run's "drop-in example" stage
# builds it) is made a project of its own twice, one depending on this tree's chacha20 by
# path, one on the published chacha20 =0.10.2 (from the local registry cache: --offline),
# each with its own target directory. Each run, the two one after the other so that both
# see the same machine load:
#   clean    `cargo build --release` after `cargo clean` (every dependency compiled);
#   rebuild  `cargo build --release` after `touch src/main.rs` (the user's crate only);
#   size     the release binary after `strip`, in bytes.
# One line per run and measure gives both times and the ratio ours / published; the last
# lines the medians. On a shared machine only the ratios of one run mean much.
set -euo pipefail

runs=${1:-3}
root=${2:-$(git -C "$(dirname "$0")" rev-parse --show-toplevel)}
root=$(cd "$root" && pwd)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/chacha-build-cost.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

for which in ours published; do
  mkdir -p "$scratch/$which/src"
  cp "$root/chacha20/examples/drop_in.rs" "$scratch/$which/src/main.rs"
  if [ "$which" = published ]; then
    dep='chacha20 = { version = "=0.10.2", features = ["legacy", "xchacha"] }'
  else
    dep="chacha20 = { path = \"$root/chacha20\", features = [\"legacy\", \"xchacha\"] }"
  fi
  printf '[package]\nname = "drop-in-%s"\nversion = "0.0.0"\nedition = "2024"\n\n[dependencies]\n%s\n\n[workspace]\n' \
    "$which" "$dep" > "$scratch/$which/Cargo.toml"
  # Resolve once (and fetch, if the cache lacks something), outside the timings.
  (cd "$scratch/$which" && cargo generate-lockfile --offline -q 2> /dev/null || cargo generate-lockfile -q)
done

# Seconds (wall clock) of one `cargo build --release` in $1.
build() {
  local t0 t1
  t0=$(date +%s.%N)
  (cd "$scratch/$1" && cargo build --release --offline -q)
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc
}

ratio() { echo "scale=2; $1 / $2" | bc; }

echo "CPU: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), $(nproc) cores; rustc $(rustc -V | cut -d' ' -f2)"
printf '%-8s %4s %12s %12s %7s\n' measure run ours published ratio
declare -a clean_o clean_p touch_o touch_p
for run in $(seq "$runs"); do
  for which in ours published; do (cd "$scratch/$which" && cargo clean -q); done
  o=$(build ours); p=$(build published)
  clean_o+=("$o"); clean_p+=("$p")
  printf '%-8s %4d %11.2fs %11.2fs %7s\n' clean "$run" "$o" "$p" "$(ratio "$o" "$p")"
  for which in ours published; do touch "$scratch/$which/src/main.rs"; done
  o=$(touch "$scratch/ours/src/main.rs"; build ours); p=$(touch "$scratch/published/src/main.rs"; build published)
  touch_o+=("$o"); touch_p+=("$p")
  printf '%-8s %4d %11.2fs %11.2fs %7s\n' rebuild "$run" "$o" "$p" "$(ratio "$o" "$p")"
done
for which in ours published; do
  cp "$scratch/$which/target/release/drop-in-$which" "$scratch/$which.bin"
  strip "$scratch/$which.bin"
done
o=$(stat -c %s "$scratch/ours.bin"); p=$(stat -c %s "$scratch/published.bin")
printf '%-8s %4s %12d %12d %7s\n' size - "$o" "$p" "$(ratio "$o" "$p")"
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
mo=$(median "${clean_o[@]}"); mp=$(median "${clean_p[@]}")
printf '%-8s %4s %11.2fs %11.2fs %7s\n' clean median "$mo" "$mp" "$(ratio "$mo" "$mp")"
mo=$(median "${touch_o[@]}"); mp=$(median "${touch_p[@]}")
printf '%-8s %4s %11.2fs %11.2fs %7s\n' rebuild median "$mo" "$mp" "$(ratio "$mo" "$mp")"
