#!/usr/bin/env bash
# Opens the planner: installs what is missing, builds the web app with
# trunk and serves it on http://127.0.0.1:8080 with the built-in default
# plan. `scripts/run.sh --cli [plan.json]` prints the CLI breakdown instead.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cargo >/dev/null || { echo "cargo not found: install Rust with rustup first" >&2; exit 1; }

if [ "${1:-}" = "--cli" ]; then
  shift
  cargo build -q --release -p memwall-cli
  bin=target/release/memwall
  if [ $# -gt 0 ]; then
    "$bin" eval "$1" --format table
  else
    "$bin" example | "$bin" eval - --format table
  fi
  exit 0
fi

MEMWALL_NO_BROWSER=1 scripts/setup-web.sh
echo "building the planner and serving it on http://127.0.0.1:8080 (Ctrl-C to stop)"
# No auto-reload: its inline script is rewritten at serve time, after the
# post-build hook hashed the page's scripts for the CSP (scripts/csp-hash.pl).
exec trunk serve --release --no-autoreload
