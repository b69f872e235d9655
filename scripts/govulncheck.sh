#!/usr/bin/env bash
# Runs govulncheck on the main module against a local copy of the Go
# vulnerability database, so it works without vuln.go.dev: only the Go
# module proxy is needed, and only the first time.
#
#   scripts/govulncheck.sh                 # govulncheck ./...
#   scripts/govulncheck.sh -show verbose ./...
#
# 1. builds govulncheck (golang.org/x/vuln, pinned in tools/vuln/go.mod, a
#    module apart from tools/ so the temporal CLI's pins stay as they are)
#    and vulndb-build into bin/;
# 2. fetches the database's source module, golang.org/x/vulndb at
#    $NOTEBRIDGE_VULNDB_VERSION, with `go mod download -json`, and builds the
#    database govulncheck reads (index/db.json, index/modules.json,
#    ID/<id>.json) into bin/vulndb/<version>/, reused afterwards;
# 3. runs bin/govulncheck -db file://... on the main module.
#
# Exit status is govulncheck's: 0 clean, 3 vulnerabilities found.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"

vulndb_version="${NOTEBRIDGE_VULNDB_VERSION:-v0.0.0-20261105234957-e22db6528018}"
db="bin/vulndb/$vulndb_version"

mkdir -p bin
echo "Building govulncheck and vulndb-build from tools/vuln..." >&2
(cd tools/vuln && go build -trimpath -o "$root/bin/govulncheck" golang.org/x/vuln/cmd/govulncheck \
  && go build -trimpath -o "$root/bin/vulndb-build" ./cmd/vulndb-build)

if [ ! -f "$db/index/modules.json" ]; then
  echo "Building the vulnerability database golang.org/x/vulndb@$vulndb_version into $db..." >&2
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  # Outside any module, so no go.mod is touched.
  if ! (cd "$tmp" && GOFLAGS=-mod=mod go mod download -json "golang.org/x/vulndb@$vulndb_version" >"$tmp/download.json"); then
    cat "$tmp/download.json" >&2 || true
    echo "could not fetch golang.org/x/vulndb@$vulndb_version through the module proxy ($(go env GOPROXY))" >&2
    exit 1
  fi
  bin/vulndb-build -download-json "$tmp/download.json" -out "$db" >&2
fi

if [ "$#" -eq 0 ]; then
  set -- ./...
fi
exec bin/govulncheck -db "file://$root/$db" "$@"
