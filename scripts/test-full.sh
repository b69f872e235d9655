#!/usr/bin/env bash
# make test's last pass: every test of the product module, including those on
# a real Temporal dev server. The workflows package spends about 7.5 minutes
# mostly waiting on its dev servers, so it runs in a go command of its own
# beside the rest (which keep the go command's default of one test binary a
# core); its output is printed when it ends. Either failing fails the pass.
set -uo pipefail
cd "$(dirname "$0")/.."

out=$(mktemp /tmp/notebridge-workflows-test.XXXXXX)
trap 'rm -f "$out"' EXIT
module=$(go list -m)
echo "go test -count=1 -timeout 20m ./workflows/ (beside the rest; printed when it ends)"
go test -count=1 -timeout 20m ./workflows/ >"$out" 2>&1 &
wf=$!

# The slowest of the rest first: the go command starts packages in the order
# named, so these do not run alone at the end.
rest=$(go list ./... | grep -vx "$module/workflows")
echo "go test -count=1 -timeout 20m (every other package)"
go test -count=1 -timeout 20m ./limiter/entity/ ./internal/chaos/ ./cmd/demo/ $rest
rc=$?

wait "$wf"
wfrc=$?
cat "$out"
if [ "$rc" -ne 0 ] || [ "$wfrc" -ne 0 ]; then
  exit 1
fi
