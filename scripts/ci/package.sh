#!/usr/bin/env bash
# `cargo package` for every library crate, as crates.io would get them: the five are
# packaged together (cargo >= 1.90 resolves their path+version dependencies on each other
# through a temporary local registry, so nothing needs to be published first) and each
# .crate is built on its own from the unpacked sources. Then each file list is checked for
# what must not ship: build output, CI scripts, the benches' sample report, local state.
#
#   scripts/ci/package.sh         (.ci/run stage "cargo package"; the workflow's gate job of that name)
set -euo pipefail
cd "$(dirname "$0")/../.."
crates=(chacha-core chacha-backends chacha20@0.10.100 chacha-rng chacha20poly1305@0.11.100)
args=()
for c in "${crates[@]}"; do args+=(-p "$c"); done

# --allow-dirty only when run by hand in a work tree with changes; CI checks a clean clone.
dirty=()
[ "${CI:-}" = true ] || dirty=(--allow-dirty)
# Cargo unpacks each .crate of that temporary registry into $CARGO_HOME/registry/src/<hash of
# the registry's path>/NAME-VERSION and reuses an unpacked folder that is already there: on a
# machine that ran this script before, in a clone at the same path, a .crate of the same
# version but older contents was verified against the old sources (CI failed so: a backend
# built against the chacha-core of an earlier run, "no method named `mac_then_xor`"). So the
# unpacked copies of our crates go first; crates.io's own folders are left alone.
cargo_home=${CARGO_HOME:-$HOME/.cargo}
for c in "${crates[@]}"; do
  name=${c%@*}
  for d in "$cargo_home"/registry/src/*/"$name"-[0-9]*; do
    case "$d" in */index.crates.io-*) ;; *) [ -d "$d" ] && rm -rf "$d" ;; esac
  done
done
CARGO_TARGET_DIR=target/package cargo package --locked "${dirty[@]}" "${args[@]}"

status=0
for c in "${crates[@]}"; do
  files=$(cargo package --list "${dirty[@]}" -p "$c" 2>/dev/null)
  for required in Cargo.toml README.md LICENSE-MIT LICENSE-APACHE src/lib.rs; do
    grep -qx "$required" <<<"$files" || { echo "$c: the package lacks $required" >&2; status=1; }
  done
  junk=$(grep -E '(^|/)(target|sample|scripts|fuzz)/|\.(svg|csv|orig\.rs|rej)$|^\.' <<<"$files" |
         grep -vx -e .cargo_vcs_info.json || true)
  if [ -n "$junk" ]; then echo "$c: the package ships files it must not:" >&2; echo "$junk" >&2; status=1; fi
  echo "$c: $(wc -l <<<"$files") files"
done
exit "$status"
