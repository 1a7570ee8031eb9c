#!/usr/bin/env bash
# cargo-deny with the committed deny.toml: licences, duplicate versions and wildcards,
# sources (crates.io only). Advisories need the RustSec database from GitHub, which this
# machine cannot reach: the public workflow's deny job runs `cargo deny check` in full.
#
#   scripts/ci/deny.sh            (.ci/run stage "cargo deny")
#
# The stage does not install cargo-deny: `cargo install cargo-deny --locked` (0.20.2) took
# 18 min (6 min of CPU) on a 2-core machine shared with other builds, too much of .ci/run's
# 40-minute budget. Where it is on PATH it runs (1-2 s); otherwise the stage says so
# loudly and passes, and the public workflow's deny job runs every check.
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v cargo-deny >/dev/null; then
  echo "CARGO DENY SKIPPED: cargo-deny is not installed (\`cargo install cargo-deny --locked\`"
  echo "CARGO DENY SKIPPED: builds for 6+ min on 2 cores); the public workflow's deny job runs it"
  exit 0
fi
cargo deny --version
echo "advisories: not checked here (the RustSec database is fetched from GitHub); public CI checks them"
cargo deny --locked check licenses bans sources
