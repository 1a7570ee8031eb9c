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
