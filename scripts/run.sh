#!/usr/bin/env bash
# Builds the CLI and evaluates the built-in example plan (or the plan file
# given as the first argument), printing the readable breakdown.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cargo >/dev/null || { echo "cargo not found: install Rust with rustup first" >&2; exit 1; }
cargo build -q --release -p memwall-cli
bin=target/release/memwall
if [ $# -gt 0 ]; then
  "$bin" eval "$1" --format table
else
  "$bin" example | "$bin" eval - --format table
fi
