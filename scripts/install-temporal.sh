#!/usr/bin/env bash
# Installs the pinned temporal CLI (v1.5.1, which carries the dev server and
# its Web UI) into ./bin, building it from source with the Go toolchain. The
# separate module in tools/ keeps the server's dependency graph out of the
# application's go.mod. An existing bin/temporal of the right version is reused.
set -euo pipefail
cd "$(dirname "$0")/.."

want="1.5.1"
bin="bin/temporal"
if [ -x "$bin" ] && "$bin" --version 2>/dev/null | grep -q "version $want "; then
  exit 0
fi

echo "Building the temporal CLI v$want from source into $bin, once (the README says how long it takes)..." >&2
mkdir -p bin
# The machine's own Go builds it (GOTOOLCHAIN=local, even where the
# Makefile exports a newer toolchain for our code): the dev server is a
# local development tool, and this is the build that is known to work and
# whose compiled packages the build cache already holds.
(cd tools && GOTOOLCHAIN=local go build -trimpath \
  -ldflags "-s -w -X github.com/temporalio/cli/temporalcli.Version=$want" \
  -o ../"$bin" github.com/temporalio/cli/cmd/temporal)
"$bin" --version >&2
