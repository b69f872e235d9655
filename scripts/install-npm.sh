#!/usr/bin/env bash
# Installs the Node packages of the conformance suites (conformance/*/ with a
# package.json) exactly as their package-lock.json pins them, with `npm ci`.
# A folder whose node_modules was installed from the same package.json,
# package-lock.json and install-time scripts (schema-types.mjs and
# gen-schemas.mjs, which npm ci runs as postinstall; their hash is kept in
# node_modules/.notebridge-lock) is reused without touching the network, so
# the script is instant and offline-safe once it has run.
# Node 20 or later and npm are needed; without node the Go tests skip
# (outside CI) and this script says so and exits 0, except under CI=true.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  if [ "${CI:-}" = "true" ]; then
    echo "install-npm: node and npm are needed (CI=true); install Node 20 or later" >&2
    exit 1
  fi
  echo "install-npm: node or npm is not installed; the conformance suites will skip" >&2
  exit 0
fi

for lock in conformance/*/package-lock.json; do
  dir=$(dirname "$lock")
  want=$(cd "$dir" && cat package.json package-lock.json $(ls schema-types.mjs gen-schemas.mjs 2>/dev/null) | sha256sum | cut -d' ' -f1)
  stamp="$dir/node_modules/.notebridge-lock"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    continue
  fi
  echo "install-npm: npm ci in $dir" >&2
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  # A module boundary, so that `go vet ./...` and `go test ./...` never
  # descend into node_modules, whatever a package ships.
  printf 'module notebridge.invalid/node_modules\n' >"$dir/node_modules/go.mod"
  echo "$want" >"$stamp"
done
