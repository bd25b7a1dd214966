#!/usr/bin/env bash
# The project's test command (what CI runs):
#   scripts/test-all.sh [--quick] [-- <cargo nextest run arguments, e.g. a filter>]
# --quick skips cargo fmt and clippy, for local iteration (docs/development.md).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$PWD"

quick=0
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1; shift ;;
    --) shift; break ;;
    *) echo "usage: scripts/test-all.sh [--quick] [-- <cargo nextest run args>]" >&2; exit 2 ;;
  esac
done

# rustup's cargo may not be on PATH in a non-login shell.
if ! command -v cargo >/dev/null && [ -f "$HOME/.cargo/env" ]; then
  # shellcheck source=/dev/null
  . "$HOME/.cargo/env"
fi

step() { echo "== $* =="; }

step "setup test environment"
bash scripts/setup-test-env.sh

export ACS_TEST_POSTGRES_URL="${ACS_TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
export ACS_AWX_BIN="$ROOT/.venv/bin/awx"
export ACS_PYTHON_BIN="$ROOT/.venv/bin/python"
export ACS_ANSIBLE_BIN_DIR="$ROOT/.venv/bin"
export ACS_AWX_COLLECTIONS_DIR="$ROOT/.venv/collections"
export ACS_SCHEMATHESIS_BIN="$ROOT/.venv/bin/st"
export ACS_CHROMIUM_BIN="${ACS_CHROMIUM_BIN:-/usr/bin/chromium}"
export ACS_CHROMEDRIVER_BIN="${ACS_CHROMEDRIVER_BIN:-/usr/bin/chromedriver}"
export ACS_AXE_JS="${ACS_AXE_JS:-$ROOT/node_modules/axe-core/axe.min.js}"
export ACS_SLAPD_BIN="${ACS_SLAPD_BIN:-/usr/sbin/slapd}"
export ACS_SLAPADD_BIN="${ACS_SLAPADD_BIN:-/usr/sbin/slapadd}"
export ACS_NODE_BIN="${ACS_NODE_BIN:-$(command -v node)}"
export ACS_OIDC_PROVIDER_SCRIPT="$ROOT/tests/oidc/provider.mjs"

if [ "$quick" -eq 0 ]; then
  step "cargo fmt --all --check"
  cargo fmt --all --check

  step "cargo clippy --workspace --all-targets -- -D warnings"
  cargo clippy --workspace --all-targets -- -D warnings
fi

# One build of every test target and every binary the tests start (the binaries' own
# integration tests make Cargo build them), then each test in its own process with the
# timeouts of .config/nextest.toml.
step "cargo nextest run --workspace"
status=0
cargo nextest run --workspace --no-fail-fast "$@" || status=$?

# nextest does not run doc tests; with a filter (a focused run) they are left out.
if [ $# -eq 0 ]; then
  step "cargo test --workspace --doc"
  cargo test --workspace --doc || status=$?
fi
exit "$status"
