#!/usr/bin/env bash
# Runs a command on this machine as if OpenSSL and libsodium were not installed: in a
# private mount namespace (root; `unshare` from util-linux), every libcrypto, libssl and
# libsodium shared object is covered by /dev/null (so dlopen fails) and the OpenSSL and
# libsodium headers and pkg-config files by empty folders. Nothing outside the command
# sees a change.
#
#   benches/scripts/without-peer-libs.sh cargo test --workspace
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: $0 COMMAND..." >&2; exit 2; }
if [ -z "${CHACHA_IN_NAMESPACE:-}" ]; then
  CHACHA_IN_NAMESPACE=1 exec unshare --mount --propagation private "$0" "$@"
fi
empty=$(mktemp -d)
hidden=0
for f in /usr/lib/*/libcrypto.so* /usr/lib/*/libssl.so* /usr/lib/*/libsodium.so* /usr/lib/libcrypto.so* /usr/lib/libsodium.so* \
         /usr/local/lib/libcrypto.so* /usr/local/lib/libsodium.so*; do
  [ -e "$f" ] && [ ! -L "$f" ] || continue
  mount --bind /dev/null "$f"; hidden=$((hidden + 1))
done
for d in /usr/include/openssl /usr/include/sodium /usr/include/*/openssl /usr/lib/*/pkgconfig /usr/share/pkgconfig; do
  [ -d "$d" ] || continue
  mount --bind "$empty" "$d"
done
[ -e /usr/include/sodium.h ] && mount --bind /dev/null /usr/include/sodium.h
# Tests that require the libraries under CI (CI=true) skip instead when they are hidden here.
export CHACHA_PEER_LIBS_HIDDEN=1
echo "without-peer-libs: covered $hidden shared objects with /dev/null (dlopen of them fails)" >&2
"$@"
