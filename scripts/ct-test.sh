#!/usr/bin/env bash
# Constant-time evidence (the "ctgrind" method): runs chacha-ctgrind under valgrind's
# memcheck with the key, nonce and data marked undefined; memcheck must report no
# conditional jump, conditional move or memory address that depends on them. Then runs the
# program's deliberately non-constant-time control, which memcheck must catch, so a pass
# means something. What a pass proves and what not: the "Constant-time evidence" section
# of chacha-backends/README.md.
#
# Installs valgrind with apt if it is missing. x86_64 only (the client requests are
# written for it).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(uname -m)" != x86_64 ]; then
  echo "ct-test: x86_64 only (this is $(uname -m))" >&2; exit 1
fi
if ! command -v valgrind >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null
fi
echo "$(valgrind --version), memcheck"

# The release profile: the code that ships.
cargo build -q --release -p chacha-ctgrind
bin=target/release/chacha-ctgrind
log=$(mktemp)
trap 'rm -f "$log"' EXIT
vg=(valgrind --tool=memcheck --error-exitcode=1 --track-origins=yes)

if ! "${vg[@]}" "$bin" >"$log" 2>&1; then
  cat "$log" >&2
  echo "ct-test FAILED: memcheck saw a branch or an address depending on secret data (above)" >&2
  exit 1
fi
grep -q 'equal across backends' "$log" || { cat "$log" >&2; echo "ct-test: the program did not finish" >&2; exit 1; }
grep -E '^backends under valgrind|equal across backends|ERROR SUMMARY' "$log" | sed 's/^==[0-9]*== //'

# The control must fail, with both kinds of report.
if "${vg[@]}" "$bin" --control >"$log" 2>&1; then
  cat "$log" >&2
  echo "ct-test: the non-constant-time control passed under memcheck: the test cannot fail" >&2
  exit 1
fi
for what in 'Conditional jump or move depends on uninitialised value' 'Use of uninitialised value of size'; do
  grep -q "$what" "$log" || { cat "$log" >&2; echo "ct-test: the control's '$what' report is missing" >&2; exit 1; }
done
echo "control (branch and table index on key bytes) failed as it must: $(grep -c 'uninitialised value' "$log") reports"
