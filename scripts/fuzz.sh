#!/usr/bin/env bash
# Runs every fuzz target in the module for the given time each (default 10m),
# one after another, and stops at the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime="${1:-10m}"
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
    echo "== $pkg $target ($fuzztime)"
    go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$pkg"
  done
done
