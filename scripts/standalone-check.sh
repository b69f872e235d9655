#!/usr/bin/env bash
# Proves the repository stands on its own: clones the committed HEAD into a
# temporary directory with nothing beside it (no ../shared) and runs the
# unit tests there with the race detector, the product module's and
# bench's (make test's only unit-test pass before the full one).
# Uncommitted changes are not part of the clone, so run it on a clean work
# tree (CI always is one).
set -euo pipefail
cd "$(dirname "$0")/.."

tmp=$(mktemp -d /tmp/notebridge-standalone.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
git clone --quiet --no-hardlinks . "$tmp/notebridge"
if [ -e "$tmp/shared" ]; then
  echo "standalone-check: $tmp/shared exists; the check needs an empty parent directory" >&2
  exit 1
fi
echo "Unit tests with the race detector in a clone with nothing beside it ($tmp/notebridge)..." >&2
cd "$tmp/notebridge"
scripts/install-npm.sh
# The slowest packages under the race detector first, so they do not run
# alone at the end (the go command starts packages in the order named).
go test -race -short -count=1 -timeout 15m ./notion/ ./limiter/sim/ ./...
(cd bench && go test -race -short -count=1 -timeout 5m ./...)
