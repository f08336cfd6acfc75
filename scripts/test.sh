#!/usr/bin/env bash
# Runs every test of the workspace, installing what is missing first.
# Used by README ("the test command") and by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

step "toolchain"
command -v cargo >/dev/null || { echo "cargo not found: install Rust with rustup first" >&2; exit 1; }
rustup component list --installed 2>/dev/null | grep -q '^rustfmt' || rustup component add rustfmt
rustup component list --installed 2>/dev/null | grep -q '^clippy' || rustup component add clippy
rustup target list --installed | grep -q '^wasm32-unknown-unknown$' || rustup target add wasm32-unknown-unknown

step "format"
cargo fmt --all -- --check

step "lint"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "tests (unit, validation against published cases, properties, CLI)"
cargo test --workspace --locked

step "planner-core builds for wasm32-unknown-unknown"
cargo build -p planner-core --target wasm32-unknown-unknown --locked

step "the example plan evaluates end to end"
cargo run -q -p memwall-cli --locked -- example | cargo run -q -p memwall-cli --locked -- eval - --format table >/dev/null

step "web tools (trunk, wasm-bindgen, wasm-opt, Chromium, Playwright)"
scripts/setup-web.sh

step "web build (trunk, release)"
trunk build --release --locked

step "browser tests (Playwright, headless Chromium)"
npx playwright test

echo
echo "all checks passed"
