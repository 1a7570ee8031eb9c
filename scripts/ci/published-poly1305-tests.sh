#!/usr/bin/env bash
# The published poly1305 0.9.1's own tests, unchanged, on ours: its tests/ folder
# (tests/lib.rs: the NaCl vector, poly1305-donna's self-tests, the draft-agl TLS vector,
# RFC 7539 §2.5.2, an `update_padded` vector from RFC 8439 §2.8.2) is copied from the
# registry's copy of the crate into a scratch package whose `poly1305` is this
# workspace's, and run there. The test files are never edited: a name or a behaviour of
# the published crate that ours lacks fails to build or fails a test here. (Its unit tests
# in src/fuzz.rs compare its own AVX2 and soft backends through private items: they test
# that crate's internals, not its API.)
#
#   scripts/ci/published-poly1305-tests.sh    (.ci/run stage "published poly1305 tests")
set -euo pipefail
cd "$(dirname "$0")/../.."

# shellcheck source=scripts/ci/published-tests.bash
source scripts/ci/published-tests.bash
# hex-literal: the published crate's dev-dependency, as its Cargo.toml names it.
published_tests poly1305 0.9.1 "[package]
name = \"published-poly1305-tests\"
version = \"0.0.0\"
edition = \"2024\"
publish = false

[dependencies]
poly1305 = { path = \"$PWD/poly1305\" }

[dev-dependencies]
hex-literal = \"1\""
expected=$(grep -c '^#\[test\]' "$published"/tests/*.rs | awk -F: '{s += $NF} END {print s + 0}')
[ "$passed" -ge "$expected" ] && [ "$expected" -ge 6 ] ||
  { echo "published-poly1305-tests: $passed of the published tests' $expected passed" >&2; exit 1; }
echo "the published poly1305 0.9.1's $passed tests pass unchanged on ours"
