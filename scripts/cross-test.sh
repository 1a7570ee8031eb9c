#!/usr/bin/env bash
# cross-test.sh TARGET — the workspace's tests on another architecture, from an x86_64
# Debian/Ubuntu machine:
#
#   aarch64  NEON, little-endian: under qemu-user, expects the backends soft,neon
#   s390x    big-endian: under qemu-user, expects soft
#   i686     32-bit x86 (8 vector registers): natively, through the 32-bit C library's
#            loader, expects the x86 backends this CPU runs (scripts/ci/cpu-backends.sh:
#            soft,sse2,avx2 without AVX-512; CROSS_EXPECT_BACKENDS, else
#            CHACHA_EXPECT_BACKENDS, overrides it)
#
# Installs what it needs (rustup target; Debian's cross gcc + libc for the target, and
# qemu-user; apt-get through sudo when not root), runs the test suite for the target, and
# on aarch64 also checks that no NEON intrinsic is left out of line and runs the report
# once (`--quick`) to prove the command works. Exits non-zero on any failure; prints how
# long it took. Builds into target/cross-TARGET.
#
# i686 links with Debian's i686 cross gcc, not `gcc -m32`: the `gcc-multilib` package
# conflicts with every Debian cross gcc, so with it the aarch64 and s390x runs would remove
# and reinstall each other's compilers. Its test binaries run natively through the cross
# libc's own loader (/usr/i686-linux-gnu/lib/ld-linux.so.2), as qemu's -L does for the
# others.
#
# What runs under emulation and what does not:
# - PROPTEST_CASES is scaled down to 32 under qemu (256 natively, as in .ci/run): every
#   deterministic edge of the differential matrix still runs; proptest adds random ones.
# - On aarch64 and s390x every library crate but the AEAD's runs. On i686, what only 32-bit
#   x86 has: chacha-core, chacha-backends (the sse2 and avx2 modules' i686 forms: fewer
#   vector registers, no scalar fifth block, intrinsics rounds instead of `asm!`), and
#   every x86 backend's Poly1305 in 32-bit code under the MAC and the AEAD fronts (with the
#   AEAD's oracle). The cipher and RNG fronts on a 32-bit `usize` run in the wasm32-wasip1
#   stage (every suite, all features), so they are not built again here. chacha-bench's own tests (tests/peers_agree.rs)
#   run nowhere here: they compare the published crates and OpenSSL/libsodium (loaded at
#   run time, so absent for a foreign architecture and skipped) against ours, which the
#   library suites' published-crate tests and the aarch64 report run below also check, and
#   on i686 they were about half of the stage's build (criterion, ring, the peers).
# - The report's timings under qemu mean nothing; the script sets CHACHA_EMULATED so the
#   report says so (it also recognises an x86 /proc/cpuinfo on a non-x86 build). The
#   same variable makes chacha20's `parallel` test of requests above the threshold take
#   one length and one prefix, as under miri (it was 186 s of the s390x stage on AMD EPYC
#   Zen 3); natively it takes them all.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS

target=${1:-}
case "$target" in
  aarch64) triple=aarch64-unknown-linux-gnu gnu=aarch64-linux-gnu deb=arm64 emulated=1 expect=soft,neon ;;
  s390x) triple=s390x-unknown-linux-gnu gnu=s390x-linux-gnu deb=s390x emulated=1 expect=soft ;;
  i686) triple=i686-unknown-linux-gnu gnu=i686-linux-gnu deb=i386 emulated='' expect=$(scripts/ci/cpu-backends.sh) ;;
  *)
    echo "usage: $0 aarch64|s390x|i686" >&2
    exit 2
    ;;
esac

# A pinned build (`RUSTFLAGS='--cfg chacha_backend="NAME"'`, CONTRIBUTING.md) has that
# backend alone, so the suite expects it alone, and builds into a directory of its own.
pinned=''
if [[ ${RUSTFLAGS:-} =~ chacha_backend=\"([a-z0-9]+)\" ]]; then
  pinned=${BASH_REMATCH[1]}
  expect=$pinned
fi

say() { echo "cross-test $target: $*"; }
fail() {
  echo "cross-test $target: $*" >&2
  exit 1
}

# --- what the machine needs -------------------------------------------------------------
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
apt_install() {
  local need=() p
  for p in "$@"; do installed "$p" || need+=("$p"); done
  ((${#need[@]})) || return 0
  local sudo=()
  [ "$(id -u)" = 0 ] || sudo=(sudo)
  say "installing ${need[*]}"
  if ! { "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null; }; then
    fail "apt-get install ${need[*]} failed"
  fi
}
command -v dpkg-query >/dev/null || fail "needs a Debian-like system (dpkg, apt-get) to install the cross tools"
if [ -n "$emulated" ]; then
  apt_install "gcc-$gnu" "libc6-dev-$deb-cross" qemu-user
else
  apt_install "gcc-$gnu" "libc6-dev-$deb-cross"
fi
if ! rustup target list --installed 2>/dev/null | grep -qx "$triple"; then
  timeout 300 rustup target add "$triple" >/dev/null 2>&1 ||
    fail "rustup target add $triple failed (no route to the rustup server?)"
fi

# --- how cargo builds and runs for the target --------------------------------------------
var=$(echo "$triple" | tr 'a-z-' 'A-Z_')
export "CARGO_TARGET_${var}_LINKER=$gnu-gcc"
if [ -n "$emulated" ]; then
  # -E LD_LIBRARY_PATH: without it, once the foreign libc6 is installed in the multiarch
  # paths the cross ld.so picks a mismatched libc and every test binary hangs.
  export "CARGO_TARGET_${var}_RUNNER=qemu-$target -L /usr/$gnu -E LD_LIBRARY_PATH=/usr/$gnu/lib"
  export PROPTEST_CASES="${CROSS_PROPTEST_CASES:-32}"
  export CHACHA_EMULATED="qemu-$target"
  export CHACHA_EXPECT_BACKENDS="$expect"
else
  export "CARGO_TARGET_${var}_RUNNER=/usr/$gnu/lib/ld-linux.so.2 --library-path /usr/$gnu/lib"
  # The same for the binaries a test starts itself (benches/tests/peers_agree.rs starts the
  # report's worker): without Debian's libc6-i386, /lib/ld-linux.so.2 does not exist and a
  # direct start fails with ENOENT. (A machine that had it hid this until a fresh one.)
  export CHACHA_TEST_RUNNER="/usr/$gnu/lib/ld-linux.so.2 --library-path /usr/$gnu/lib"
  export PROPTEST_CASES="${PROPTEST_CASES:-256}"
  # The x86 backends are the same on i686 as on x86_64, so the list .ci/run expects there
  # (CHACHA_EXPECT_BACKENDS) holds here too.
  export CHACHA_EXPECT_BACKENDS="${CROSS_EXPECT_BACKENDS:-${CHACHA_EXPECT_BACKENDS:-$expect}}"
fi
export CARGO_TARGET_DIR="$PWD/target/cross-$target${pinned:+-$pinned}"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
say "backends expected: $CHACHA_EXPECT_BACKENDS; PROPTEST_CASES=$PROPTEST_CASES"

# --- the tests ---------------------------------------------------------------------------
# One build with every feature of the selected crates (the fronts' legacy, xchacha, zeroize
# and rng; chacha-rng's serde, where byte order shows in serialized state), not two: default
# features are a subset, and the x86_64 stages test them alone.
# The poly1305 front in every build: its Poly1305 is NEON's on aarch64, and its tests are short.
if [ -n "$emulated" ]; then
  packages=(-p chacha-core -p chacha-backends -p chacha20@0.10.100 -p chacha-rng -p chacha-reference-kernel -p poly1305@0.9.100)
else
  packages=(-p chacha-core -p chacha-backends -p poly1305@0.9.100 -p chacha20poly1305@0.11.100 -p chacha20poly1305-oracle)
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
cargo test --target "$triple" "${packages[@]}" --all-features 2>&1 | tee "$log"
say "test suite done at $((SECONDS - start)) s"

if [ "$target" = aarch64 ]; then
  # No core::arch intrinsic called out of line (a function missing a target feature) in the
  # optimised differential test binary, and the neon module really in it.
  test_bin=$(cargo test --target "$triple" -p chacha-backends --all-features --test differential \
    --no-run --message-format=json 2>/dev/null |
    sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1)
  [ -n "$test_bin" ] || fail "could not find the differential test binary"
  chacha-backends/scripts/check-intrinsics-inlined.sh "$test_bin" neon
  # The pinned build (`--cfg chacha_backend="neon"`: neon compiled alone) builds and passes
  # the differential matrix; its own target directory, since RUSTFLAGS rebuild everything.
  RUSTFLAGS='--cfg chacha_backend="neon"' CARGO_TARGET_DIR="$CARGO_TARGET_DIR/forced-neon" \
    CHACHA_EXPECT_BACKENDS=neon cargo test --target "$triple" -p chacha-backends --test differential 2>&1 |
    tee -a "$log"
  say "intrinsics check and pinned neon done at $((SECONDS - start)) s"
  out="$CARGO_TARGET_DIR/report-quick"
  # The report's own workspace (benches/), into this stage's CARGO_TARGET_DIR.
  cargo run --release --target "$triple" --manifest-path benches/Cargo.toml -- --quick --out "$out"
  grep -q 'emulat' "$out/report.md" || fail "the report did not say it ran under emulation"
  grep -qE '\bneon\b' "$out/report.md" || fail "the report has no neon rows"
  chacha-backends/scripts/check-intrinsics-inlined.sh "$CARGO_TARGET_DIR/$triple/release/chacha-bench" neon
fi

passed=$(grep -Eo '^test result: ok\. [0-9]+ passed' "$log" | awk '{s += $4} END {print s + 0}')
say "$passed tests passed"
say "took $((SECONDS - start)) s"
