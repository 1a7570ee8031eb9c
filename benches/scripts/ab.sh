#!/usr/bin/env bash
# One backend's kernel (or the chacha20 front on it) from two source trees, timed call by
# call in one process:
#
#   benches/scripts/ab.sh REV [BACKEND] [OPS] [SIZES] [ROUNDS] [SAMPLES]
#
#   REV      a git revision: the "base" tree (e.g. HEAD, HEAD~1, dfe5cf9)
#   BACKEND  as Backend::name() spells it             [default: the fastest this CPU runs]
#   OPS      comma-separated: xor, fill (a Kernel call on an Ietf state), xor-legacy,
#            fill-legacy (the same on a Legacy state: the RNGs', XChaCha's and
#            ChaCha20Legacy's calls), mac (a one-shot Poly1305 on the
#            backend), seal (ChaCha20-Poly1305's bulk step, xor_then_mac,
#            and the tag), open (its twin, mac_then_xor), fresh (batches of 100 fresh
#            chacha20 ciphers, with_backend + apply_keystream: the report's
#            fresh-instance rows), warm (100 apply_keystream calls on one
#            chacha20 cipher: short calls are served from its batches),
#            warm-xchacha (the same on an XChaCha cipher: the Legacy layout),
#            rng (100 fill_bytes calls on one chacha-rng generator: its
#            refills are Legacy fills)
#                                                     [default: xor]
#   SIZES    comma-separated byte counts              [default: 64,256,1024,16384,1048576]
#   ROUNDS   comma-separated: 8, 12, 20               [default: 20]
#   SAMPLES  calls per tree and size                  [default: 2000; 1 MiB calls: ÷ 20]
#
# The "work" tree is the working tree as it is (uncommitted changes included). Each line
# gives both trees' minimum and median TSC ticks per byte and the per-call ratio base/work
# (above 1: the working tree is faster) at its 10th, 50th and 90th percentiles. Use it to
# decide a kernel change: two builds in one process, calls interleaved, are the only
# comparison this project's shared machines do not blur (see benches/README.md, "Noise on
# shared machines"); the report then shows the change beside the peers.
#
# How: both trees are copied into a scratch directory (REV by `git archive`), the base
# tree's library crates get the version 0.0.0-ab (Cargo cannot lock two packages of one
# name and version), and benches/ab/main.rs is built there against both as a crate of
# its own, release profile, with the RUSTFLAGS of the environment. x86_64 only (`rdtsc`).
# Needs REV to have `Backend::by_name` and the `Kernel` trait of chacha-core (every
# revision since the backends were made pluggable).
set -euo pipefail

if [ $# -lt 1 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
  sed -n '2,32p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
rev=$1
backend=${2:-}
ops=${3:-xor}
sizes=${4:-64,256,1024,16384,1048576}
rounds=${5:-20}
samples=${6:-2000}

root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
git -C "$root" rev-parse --verify --quiet "$rev^{commit}" > /dev/null || { echo "ab: no such revision: $rev" >&2; exit 2; }
scratch=$(mktemp -d "${TMPDIR:-/tmp}/chacha-ab.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# The two trees: the workspace manifest and the library crates (chacha20 names chacha-rng
# as an optional dependency and the test data as a dev-dependency, so Cargo reads both;
# older revisions have neither).
crates=(chacha-core chacha-backends chacha20 chacha-rng testdata)
mkdir -p "$scratch/base" "$scratch/work"
mapfile -t at_rev < <(git -C "$root" ls-tree --name-only "$rev" -- "${crates[@]}")
git -C "$root" archive "$rev" Cargo.toml "${at_rev[@]}" | tar -x -C "$scratch/base"
(cd "$root" && git ls-files -co --exclude-standard -- Cargo.toml "${crates[@]}" \
  | tar -cf - -T - ) | tar -x -C "$scratch/work"
for tree in base work; do
  # Each a workspace of those crates only (the others may not exist at REV); the members
  # array may span lines.
  members=
  for c in "${crates[@]}"; do [ -d "$scratch/$tree/$c" ] && members+="\"$c\", "; done
  awk -v members="members = [${members%, }]" '/^members *= *\[/ { skip = 1; print members }
       skip && /\]/ { skip = 0; next }
       !skip' "$scratch/$tree/Cargo.toml" > "$scratch/$tree/Cargo.toml.new"
  mv "$scratch/$tree/Cargo.toml.new" "$scratch/$tree/Cargo.toml"
done
for c in chacha-core chacha-backends chacha20 chacha-rng; do
  [ -f "$scratch/base/$c/Cargo.toml" ] &&
    sed -i '0,/^version = "[^"]*"/s//version = "0.0.0-ab"/' "$scratch/base/$c/Cargo.toml"
done
sed -i -E 's/^(chacha-(core|backends|rng) = \{ path = "[^"]*", version = )"[^"]*"/\1"0.0.0-ab"/' "$scratch/base/Cargo.toml"

# The AEAD entry points compiled once (feature `aead`, as chacha20poly1305 enables it), where
# the base tree has the feature; without it (older revisions have no Poly1305) the program is
# built without the base's mac and seal (its feature base-aead), and likewise without the
# base's rng where the tree has no chacha-rng.
base_aead=
ab_features=()
grep -q '^aead *=' "$scratch/base/chacha-backends/Cargo.toml" &&
  { base_aead=', features = ["aead"]'; ab_features+=(base-aead); }
base_rng= base_rng_dep=
[ -d "$scratch/base/chacha-rng" ] && {
  base_rng='base_rng = { package = "chacha-rng", path = "../base/chacha-rng", optional = true }'
  base_rng_dep='"dep:base_rng"'
  ab_features+=(base-rng)
}
# XChaCha (warm-xchacha) where the base tree's chacha20 has it behind a feature.
base_xchacha=
grep -q '^xchacha *=' "$scratch/base/chacha20/Cargo.toml" && base_xchacha=', features = ["xchacha"]'
mkdir -p "$scratch/ab/src"
cp "$root/benches/ab/main.rs" "$scratch/ab/src/main.rs"
cp "$root/Cargo.lock" "$scratch/ab/Cargo.lock"
cat > "$scratch/ab/Cargo.toml" <<TOML
[package]
name = "chacha-ab"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
base_backends = { package = "chacha-backends", path = "../base/chacha-backends"$base_aead }
work_backends = { package = "chacha-backends", path = "../work/chacha-backends", features = ["aead"] }
base = { package = "chacha20", path = "../base/chacha20"$base_xchacha }
work = { package = "chacha20", path = "../work/chacha20", features = ["xchacha"] }
$base_rng
work_rng = { package = "chacha-rng", path = "../work/chacha-rng" }

[features]
base-aead = []
base-rng = [$base_rng_dep]

[workspace]
TOML

echo "ab: base = $rev ($(git -C "$root" rev-parse --short "$rev")), work = the working tree; building..." >&2
cargo build --release --quiet --manifest-path "$scratch/ab/Cargo.toml" --target-dir "$scratch/target" \
  --features "${ab_features[*]}"
bin=$scratch/target/release/chacha-ab
if [ -z "$backend" ]; then
  # The fastest backend of the working tree's table that both trees run here.
  for b in avx512 avx2 sse2 neon soft; do
    if "$bin" "$b" xor 64 20 10 > /dev/null 2>&1; then backend=$b; break; fi
  done
fi
# The CPU, as the report names it (model name, family, model).
awk -F': ' '/^model name/ && !n { n = $2 } /^cpu family/ && !f { f = $2 } /^model\t/ && !m { m = $2 }
  END { printf "CPU: %s (family %s, model %s)\n", n, f, m }' /proc/cpuinfo
for r in ${rounds//,/ }; do
  for op in ${ops//,/ }; do
    for size in ${sizes//,/ }; do
      n=$samples
      [ "$size" -ge 262144 ] && n=$(( samples / 20 > 10 ? samples / 20 : 10 ))
      "$bin" "$backend" "$op" "$size" "$r" "$n"
    done
  done
done
