#!/usr/bin/env bash
# Installs what the web build and the browser tests need, skipping what is
# already there at the right version: the wasm32 target, trunk, the
# wasm-bindgen CLI at exactly the version in Cargo.lock, wasm-opt, Chromium
# and Playwright. Only crates.io, npm and Debian packages are reached.
set -euo pipefail
cd "$(dirname "$0")/.."

note() { printf '  - %s\n' "$*"; }

rustup target list --installed | grep -q '^wasm32-unknown-unknown$' || rustup target add wasm32-unknown-unknown

want_trunk=0.21.14
if ! trunk --version 2>/dev/null | grep -q "$want_trunk"; then
  note "installing trunk $want_trunk (a few minutes)"
  cargo install trunk --version "$want_trunk" --locked
fi

# trunk uses the wasm-bindgen on PATH only when it matches the library.
want_wbg=$(awk '/^name = "wasm-bindgen"$/{getline; gsub(/version = |"/, ""); print; exit}' Cargo.lock)
if ! wasm-bindgen --version 2>/dev/null | grep -q " $want_wbg\$"; then
  note "installing wasm-bindgen-cli $want_wbg (a few minutes)"
  # Without --locked: a locked dependency of the CLI is missing from the registry.
  cargo install wasm-bindgen-cli --version "$want_wbg" --force
fi

apt_install() {
  if command -v apt-get >/dev/null; then
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@"
  else
    echo "missing $*: install it with your package manager" >&2
    exit 1
  fi
}
command -v wasm-opt >/dev/null || { note "installing binaryen (wasm-opt)"; apt_install binaryen; }
# The post-build hook that hashes the loader for the CSP (scripts/csp-hash.pl).
perl -MDigest::SHA -MMIME::Base64 -e1 2>/dev/null || { note "installing perl"; apt_install perl; }
if [ "${MEMWALL_NO_BROWSER:-0}" != 1 ]; then
  command -v chromium >/dev/null || { note "installing chromium"; apt_install chromium chromium-driver; }
  # A CJK font, so the Chinese views (and their screenshots) render glyphs.
  fc-list 2>/dev/null | grep -qiE 'wqy|cjk|hei' || { note "installing a CJK font"; apt_install fonts-wqy-microhei; }
  if [ ! -d node_modules/@playwright/test ]; then
    note "installing Playwright (npm)"
    npm ci --no-audit --no-fund --loglevel=error
  fi
fi
