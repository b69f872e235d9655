#!/usr/bin/env bash
# Usage: install-deb.sh PACKAGE BINARY
# Installs a Debian package that a test needs (chromium for the browser
# test, docker-compose for the compose file's check) unless BINARY is
# already there. Quiet and instant when it is. Needs root (or sudo) and Debian's package
# archive; `apt-get update` runs only when the first install attempt fails
# without it.
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: install-deb.sh PACKAGE BINARY (e.g. chromium /usr/bin/chromium)" >&2
  exit 2
fi
pkg=$1 bin=$2
if [ -x "$bin" ]; then
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-deb: no apt-get on this machine; install $pkg so that $bin exists" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "install-deb: not root and no sudo; as root run: apt-get install $pkg" >&2
    exit 1
  fi
  sudo="sudo"
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
install_pkg() {
  $sudo env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -q --no-install-recommends "$pkg" >"$log" 2>&1
}

echo "Installing Debian's $pkg package (about a minute the first time)..." >&2
if ! install_pkg; then
  echo "install-deb: the first attempt failed; running apt-get update and trying again" >&2
  $sudo apt-get update -q >>"$log" 2>&1 || true
  if ! install_pkg; then
    cat "$log" >&2
    echo "install-deb: apt-get install $pkg failed (output above)" >&2
    exit 1
  fi
fi
"$bin" --version >&2 2>/dev/null || { echo "install-deb: $bin does not run after the install" >&2; exit 1; }
