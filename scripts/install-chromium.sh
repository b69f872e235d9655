#!/usr/bin/env bash
# Installs Debian's chromium package (/usr/bin/chromium) for the browser
# test (internal/browsertest), which drives it headless. Quiet and instant
# when Chromium is already there. Needs root (or sudo) and Debian's package
# archive; `apt-get update` runs only when the first install attempt fails
# without it.
set -euo pipefail

bin=/usr/bin/chromium
if [ -x "$bin" ]; then
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-chromium: no apt-get on this machine; install Chromium so that $bin exists" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "install-chromium: not root and no sudo; as root run: apt-get install chromium" >&2
    exit 1
  fi
  sudo="sudo"
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
install_chromium() {
  $sudo env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -q --no-install-recommends chromium >"$log" 2>&1
}

echo "Installing Debian's chromium package (about a minute the first time)..." >&2
if ! install_chromium; then
  echo "install-chromium: the first attempt failed; running apt-get update and trying again" >&2
  $sudo apt-get update -q >>"$log" 2>&1 || true
  if ! install_chromium; then
    cat "$log" >&2
    echo "install-chromium: apt-get install chromium failed (output above)" >&2
    exit 1
  fi
fi
"$bin" --version >&2 2>/dev/null || { echo "install-chromium: $bin does not run after the install" >&2; exit 1; }
