#!/usr/bin/env bash
# The library crates as crates.io would get them, under the names they are published as,
# and their tests run from those packages alone.
#
# 1. `cargo package --no-verify` packages the six library crates of the workspace together
#    (cargo >= 1.90 resolves their path+version dependencies on each other through a
#    temporary local registry, so nothing needs to be published first).
# 2. The names `chacha20`, `chacha20poly1305` and `poly1305` on crates.io are the published
#    crates': ours are published as `chacha-cipher`, `chacha-aead` and `chacha-poly1305`,
#    their libraries still named `chacha20`, `chacha20poly1305` and `poly1305` (so
#    `use chacha20::…` is unchanged). The workspace
#    keeps the drop-in names, which a `[patch.crates-io]` entry needs (a patch replaces
#    only a package of the same name). So the packages are unpacked into target/publish/,
#    a workspace of its own, where those two are renamed (and every dependency on them
#    says `package = "…"`), and packaged again: target/publish/target/package/*.crate
#    are the files to publish (`cargo publish` from target/publish/, in the order of
#    `crates` below).
# 3. Each final .crate is unpacked into target/package-test/ and its tests run there
#    (every test target type-checked, the doc tests run; every test run with
#    PACKAGE_TESTS=full, see below):
#    `[patch.crates-io]` stands for the registry our crates are not on yet, everything
#    else comes from crates.io as it would for a user. The test profile is the
#    workspace's and the build shares the workspace's target/ (the crates.io dependencies
#    compiled by the test stages are reused), so this costs the build of our crates and
#    one run of their tests.
# 4. A user's project with the READMEs' dependency lines (`chacha20 = { package =
#    "chacha-cipher", … }`) builds and runs on the final packages; so does the workspace
#    README's quick start (its dependency lines and its examples).
# 5. Each .crate's file list is checked: what every package needs, nothing that must not
#    ship (build output, CI scripts, the benches' sample report, local state).
#
#   scripts/ci/package.sh         (.ci/run stage "cargo package"; the workflow's gate job of that name)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
# Workspace package, in dependency order (the order to publish them in).
crates=(chacha-testdata chacha-core chacha-backends chacha-rng chacha20@0.10.100 chacha20poly1305@0.11.100 poly1305@0.9.100)
# The name each is published under.
declare -A published=([chacha20]=chacha-cipher [chacha20poly1305]=chacha-aead [poly1305]=chacha-poly1305)
pub_name() { echo "${published[$1]:-$1}"; }

# --allow-dirty only when run by hand in a work tree with changes; CI checks a clean clone.
dirty=()
[ "${CI:-}" = true ] || dirty=(--allow-dirty)
# Cargo unpacks each .crate of that temporary registry into $CARGO_HOME/registry/src/<hash of
# the registry's path>/NAME-VERSION and reuses an unpacked folder that is already there: on a
# machine that ran this script before, in a clone at the same path, a .crate of the same
# version but older contents was used instead of the new one (CI failed so: a backend
# built against the chacha-core of an earlier run, "no method named `mac_then_xor`"). So the
# unpacked copies of our crates go first; crates.io's own folders are left alone.
cargo_home=${CARGO_HOME:-$HOME/.cargo}
for c in "${crates[@]}"; do
  for name in "${c%@*}" "$(pub_name "${c%@*}")"; do
    for d in "$cargo_home"/registry/src/*/"$name"-[0-9]*; do
      case "$d" in */index.crates.io-*) ;; *) [ -d "$d" ] && rm -rf "$d" ;; esac
    done
  done
done

# 1. The workspace's packages.
args=()
for c in "${crates[@]}"; do args+=(-p "$c"); done
cargo package -q --no-verify --locked "${dirty[@]}" "${args[@]}"

# 2. Renamed, in a workspace of their own.
rm -rf target/publish target/package-test
mkdir -p target/publish
members=()
for c in "${crates[@]}"; do
  name=${c%@*}
  crate=$(echo target/package/"$name"-[0-9]*.crate)
  tar -xzf "$crate" -C target/publish
  mv "target/publish/$(basename "$crate" .crate)" "target/publish/$(pub_name "$name")"
  # Cargo writes these anew when it packages again.
  rm -f "target/publish/$(pub_name "$name")"/{Cargo.toml.orig,.cargo_vcs_info.json,Cargo.lock}
  members+=("$(pub_name "$name")")
done
# The manifest cargo wrote (workspace values filled in, one table per dependency): the
# package's name, and each dependency on one of ours named by its published package and
# given its path here (stripped again when packaged).
python3 - target/publish "${crates[@]}" <<'EOF'
import json, re, subprocess, sys
root, crates = sys.argv[1], sys.argv[2:]
renamed = {"chacha20": "chacha-cipher", "chacha20poly1305": "chacha-aead", "poly1305": "chacha-poly1305"}
meta = json.loads(subprocess.run(["cargo", "metadata", "-q", "--no-deps", "--format-version", "1"],
                                 capture_output=True, check=True, text=True).stdout)
ours = {}  # name -> version, of the packages being published
for c in crates:
    name, _, version = c.partition("@")
    ours[name] = next(p["version"] for p in meta["packages"] if p["name"] == name and version in ("", p["version"]))
for name in ours:
    member = renamed.get(name, name)
    path = f"{root}/{member}/Cargo.toml"
    sections = re.split(r"\n(?=\[)", open(path).read())
    for i, section in enumerate(sections):
        header, _, body = section.partition("\n")
        lines = body.split("\n")
        if header == "[package]" and name in renamed:
            lines = [f'name = "{member}"' if l == f'name = "{name}"' else l for l in lines]
            assert f'name = "{member}"' in lines, path
        dep = re.fullmatch(r"\[(?:target\..+\.)?(?:dev-|build-)?dependencies\.(.+)\]", header)
        if dep:
            key = dep.group(1).strip('"')
            pkg = next((l.split("=", 1)[1].strip().strip('"') for l in lines if l.startswith("package = ")), key)
            # Ours when it asks for our version (the published crates, the tests' oracles,
            # are pinned to theirs).
            if pkg in ours and f'version = "{ours[pkg]}"' in lines:
                lines = [l for l in lines if not l.startswith("package = ")]
                lines.insert(0, f'path = "../{renamed.get(pkg, pkg)}"')
                if pkg in renamed:
                    lines.insert(0, f'package = "{renamed[pkg]}"')
        sections[i] = "\n".join([header] + lines)
    text = "\n".join(sections)
    if name in renamed:
        assert f'[lib]\nname = "{name}"' in text, f"{member}: no [lib] named {name}"
    open(path, "w").write(text)
EOF
{
  echo '[workspace]'
  echo 'resolver = "3"'
  printf 'members = [%s]\n' "$(printf '"%s", ' "${members[@]}" | sed 's/, $//')"
} >target/publish/Cargo.toml
cp Cargo.lock target/publish/
(cd target/publish && CARGO_TARGET_DIR="$root/target/publish/target" cargo package -q --no-verify "${members[@]/#/-p}")

# 3. The tests, from the final packages.
mkdir -p target/package-test
{
  echo '[workspace]'
  echo 'resolver = "3"'
  echo 'members = ["*"]'
  echo
  echo '# Our crates are not on crates.io yet: the registry is stood in for by the packages.'
  echo '[patch.crates-io]'
} >target/package-test/Cargo.toml
for crate in target/publish/target/package/*.crate; do
  # `-m`: the files get the time of unpacking, not the .crate's. Cargo decides by mtime
  # whether a path dependency changed, and the build shares target/: with the archive's
  # times, a second run by hand reused the first run's rlib of a crate since changed
  # ("`batch_blocks` is not a member of trait `Kernel`").
  tar -xzmf "$crate" -C target/package-test
  dir=$(basename "$crate" .crate)
  echo "${dir%-*} = { path = \"$dir\" }" >>target/package-test/Cargo.toml
done
# The workspace's test profile (its Cargo.toml), so the compiled dependencies are shared.
sed -n '/^\[profile\.test\]/,/^$/p' Cargo.toml >>target/package-test/Cargo.toml
cp Cargo.lock target/package-test/
# Every feature: some tests need one (`required-features`), and nothing else enables it here.
# By default the doc tests (every dev-dependency resolved from the packages and built, each
# library built with all features, the READMEs' examples run): about 2 minutes. Every test
# target (PACKAGE_TESTS=full) compiles each integration test at the test profile's
# opt-level 3, about 9 minutes on 2 cores: more than the gate's budget for this stage.
# Every test target is type-checked from the packages in both cases (`cargo check --tests`,
# seconds: the dependencies' metadata is shared), so a test that needs a file the package
# leaves out fails here; the same tests run from the workspace in the test stages.
scope=(--doc)
[ "${PACKAGE_TESTS:-}" = full ] && scope=()
(cd target/package-test && CARGO_TARGET_DIR="$root/target" cargo check -q --workspace --all-features --tests &&
  echo "every test target of the packages type-checks" &&
  CARGO_TARGET_DIR="$root/target" cargo test -q --workspace --all-features "${scope[@]}")

# 4. A user's project, with exactly the lines the READMEs give for depending on ours from
#    crates.io (found in them here, so a README that changes them changes this check):
#    chacha20/examples/drop_in.rs, written for the published chacha20, runs unchanged on
#    `chacha-cipher`, an AEAD round trip on `chacha-aead` and a tag on `chacha-poly1305`;
#    the registry is stood in for by the final packages, as above.
user=$(mktemp -d)
readme_line() {
  local line
  line=$(grep -x "$2" "$1") && [ "$(wc -l <<<"$line")" = 1 ] ||
    { echo "$1: no single line '$2' (the documented dependency line)" >&2; return 1; }
  echo "$line"
}
cipher_line=$(readme_line chacha20/README.md 'chacha20 = { package = "chacha-cipher", version = "[0-9.]*".*}')
aead_line=$(readme_line chacha20poly1305/README.md 'chacha20poly1305 = { package = "chacha-aead", version = "[0-9.]*".*}')
mac_line=$(readme_line poly1305/README.md 'poly1305 = { package = "chacha-poly1305", version = "[0-9.]*".*}')
mkdir -p "$user/src/bin"
printf '[package]\nname = "user"\nversion = "0.0.0"\nedition = "2024"\n\n[dependencies]\n%s\n%s\n%s\n\n[workspace]\n' \
  "$cipher_line" "$aead_line" "$mac_line" >"$user/Cargo.toml"
cp chacha20/examples/drop_in.rs "$user/src/main.rs"
cat >"$user/src/bin/aead.rs" <<'EOF'
use chacha20poly1305::aead::{Aead, KeyInit};
use chacha20poly1305::{ChaCha20Poly1305, Key, Nonce};

fn main() {
    let cipher = ChaCha20Poly1305::new(&Key::from([0x42; 32]));
    let nonce = Nonce::from([7; 12]);
    let sealed = cipher.encrypt(&nonce, b"plaintext message".as_ref()).unwrap();
    assert_eq!(cipher.decrypt(&nonce, sealed.as_ref()).unwrap(), b"plaintext message");
    println!("chacha-aead: sealed and opened {} bytes", sealed.len());
}
EOF
cat >"$user/src/bin/mac.rs" <<'EOF'
use poly1305::universal_hash::KeyInit;
use poly1305::{Key, Poly1305};

fn main() {
    // RFC 8439 §2.5.2.
    let key = Key::from([
        0x85, 0xd6, 0xbe, 0x78, 0x57, 0x55, 0x6d, 0x33, 0x7f, 0x44, 0x52, 0xfe, 0x42, 0xd5, 0x06, 0xa8,
        0x01, 0x03, 0x80, 0x8a, 0xfb, 0x0d, 0xb2, 0xfd, 0x4a, 0xbf, 0xf6, 0xaf, 0x41, 0x49, 0xf5, 0x1b,
    ]);
    let tag = Poly1305::new(&key).compute_unpadded(b"Cryptographic Forum Research Group");
    assert_eq!(tag[..4], [0xa8, 0x06, 0x1d, 0xc1]);
    println!("chacha-poly1305: the RFC 8439 tag");
}
EOF
patches=()
for dir in target/package-test/*/; do
  dir=${dir%/}
  [ -f "$dir/Cargo.toml" ] && patches+=(--config "patch.crates-io.$(basename "${dir%-*}").path=\"$root/$dir\"")
done
(cd "$user" && CARGO_TARGET_DIR="$root/target" cargo run -q "${patches[@]}" --bin user >/dev/null &&
  CARGO_TARGET_DIR="$root/target" cargo run -q "${patches[@]}" --bin aead &&
  CARGO_TARGET_DIR="$root/target" cargo run -q "${patches[@]}" --bin mac)
echo "a user's project with the READMEs' lines: $cipher_line; $aead_line; $mac_line"
# The workspace README's quick start too: its two dependency lines (their comments kept:
# TOML takes them) and its Rust examples, each block in a block of one `main`, its hidden
# lines (`# `) shown, as rustdoc would.
cipher_line=$(readme_line README.md 'chacha20 = { package = "chacha-cipher", version = "[0-9.]*".*')
aead_line=$(readme_line README.md 'chacha20poly1305 = { package = "chacha-aead", version = "[0-9.]*".*')
printf '[package]\nname = "user"\nversion = "0.0.0"\nedition = "2024"\n\n[dependencies]\n%s\n%s\n\n[workspace]\n' \
  "$cipher_line" "$aead_line" >"$user/Cargo.toml"
rm -r "$user/src" && mkdir "$user/src"
awk '/^## Quick start/ { on = 1; next } /^## / { on = 0 }
  on && /^```rust$/ { code = 1; print "    {"; next } code && /^```$/ { code = 0; print "    }"; next }
  code { sub(/^# /, ""); print "        " $0 }' README.md |
  { echo 'fn main() {'; cat; echo '    println!("the README quick start ran");'; echo '}'; } >"$user/src/main.rs"
[ "$(grep -c '^    {$' "$user/src/main.rs")" -ge 3 ] || { echo "README.md: fewer than 3 Rust examples in the quick start" >&2; exit 1; }
(cd "$user" && CARGO_TARGET_DIR="$root/target" cargo run -q "${patches[@]}")
echo "the workspace README's quick start, with its lines: $cipher_line; $aead_line"
rm -rf "$user"

# 5. The file lists.
status=0
for crate in target/publish/target/package/*.crate; do
  dir=$(basename "$crate" .crate)
  files=$(tar -tzf "$crate" | sed "s|^$dir/||" | grep -v '/$')
  for required in Cargo.toml README.md LICENSE-MIT LICENSE-APACHE src/lib.rs; do
    grep -qx "$required" <<<"$files" || { echo "$dir: the package lacks $required" >&2; status=1; }
  done
  junk=$(grep -E '(^|/)(target|sample|scripts|fuzz)/|\.(svg|csv|orig\.rs|rej)$|^\.' <<<"$files" |
         grep -vx -e .cargo_vcs_info.json || true)
  if [ -n "$junk" ]; then echo "$dir: the package ships files it must not:" >&2; echo "$junk" >&2; status=1; fi
  echo "$dir.crate: $(wc -l <<<"$files") files, $(du -k "$crate" | cut -f1) KiB"
done
exit "$status"
