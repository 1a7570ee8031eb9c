# shellcheck shell=bash
# Sourced by scripts/ci/published-aead-tests.sh and published-poly1305-tests.sh: a
# published crate's own tests/ folder, copied unchanged from the registry's copy of the
# crate into a scratch package that depends on this workspace's crate of the same name,
# and run there.

# published_tests NAME VERSION MANIFEST: finds NAME VERSION where Cargo unpacked it (a
# dev-dependency of ours, so in every lock) into $published, runs its tests in a package
# whose Cargo.toml is MANIFEST (with the workspace's lock file; target/published-NAME-tests)
# and sets $passed to the number of tests that passed.
published_tests() {
  local name=$1 version=$2 manifest=$3 found dir
  found=$(cargo metadata --format-version 1 --locked |
    grep -o "\"manifest_path\":\"[^\"]*/$name-${version//./\\.}/Cargo\\.toml\"" | head -1 | cut -d'"' -f4)
  [ -n "$found" ] || { echo "published tests: $name $version is not in the lock" >&2; exit 1; }
  published=$(dirname "$found")
  dir=$(mktemp -d)
  # shellcheck disable=SC2064 # the folder is known now
  trap "rm -rf '$dir'" EXIT
  cp -r "$published/tests" "$dir/tests"
  mkdir "$dir/src"
  echo '//! Nothing: the package exists for the published tests in tests/.' >"$dir/src/lib.rs"
  printf '%s\n\n[workspace]\n' "$manifest" >"$dir/Cargo.toml"
  cp Cargo.lock "$dir/Cargo.lock"
  (cd "$dir" && CARGO_TARGET_DIR="$OLDPWD/target/published-$name-tests" cargo test -q 2>&1) | tee "$dir/log"
  # shellcheck disable=SC2034 # read by the sourcing script
  passed=$(grep -o '^test result: ok\. [0-9]* passed' "$dir/log" | awk '{s += $4} END {print s + 0}')
}
