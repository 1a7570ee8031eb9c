#!/usr/bin/env bash
# The published chacha20poly1305 0.11.0's own tests, unchanged, on ours: its tests/ folder
# (tests/lib.rs: RFC 8439 §2.8.2 and draft-irtf-cfrg-xchacha A.3.1 by encrypt and decrypt,
# tampered tags refused, and Wycheproof's ChaCha20-Poly1305 and XChaCha20-Poly1305 sets as
# the aead crate's blobby files) is copied from the registry's copy of the crate into a
# scratch package whose `chacha20poly1305` is this workspace's, and run there. The test
# files are never edited: a name or a behaviour of the published crate that ours lacks
# fails to build or fails a test here.
#
#   scripts/ci/published-aead-tests.sh    (.ci/run stage "published chacha20poly1305 tests")
set -euo pipefail
cd "$(dirname "$0")/../.."

# shellcheck source=scripts/ci/published-tests.bash
source scripts/ci/published-tests.bash
# `alloc` is the feature the published tests/lib.rs is gated on (its own crate's feature).
published_tests chacha20poly1305 0.11.0 "[package]
name = \"published-chacha20poly1305-tests\"
version = \"0.0.0\"
edition = \"2024\"
publish = false

[features]
default = [\"alloc\"]
alloc = []

[dependencies]
chacha20poly1305 = { path = \"$PWD/chacha20poly1305\" }

[dev-dependencies]
aead = { version = \"0.6.1\", features = [\"dev\"] }"
[ "$passed" -ge 8 ] || { echo "published-aead-tests: only $passed tests passed" >&2; exit 1; }
echo "the published chacha20poly1305 0.11.0's $passed tests pass unchanged on ours ($(ls "$published/tests/data" | wc -l) Wycheproof files)"
