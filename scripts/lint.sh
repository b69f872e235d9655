#!/usr/bin/env bash
# Static analysis beyond go vet: staticcheck, deadcode (unreachable
# functions, tests counted as callers) and Temporal's workflowcheck (workflow
# determinism). Each tool is installed once into ./bin at a pinned version
# through the Go module proxy and reused afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."

staticcheck_version=v0.8.2   # honnef.co/go/tools
deadcode_version=v0.52.0     # golang.org/x/tools
workflowcheck_version=v0.6.0 # go.temporal.io/sdk/contrib/tools/workflowcheck

install() { # name module@version
  local name=$1 pkg=$2 stamp="bin/.$1.version"
  if [ -x "bin/$name" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$pkg" ]; then
    return
  fi
  echo "Installing $pkg into bin/..." >&2
  mkdir -p bin
  GOBIN="$PWD/bin" go install "$pkg"
  echo "$pkg" > "$stamp"
}
install staticcheck "honnef.co/go/tools/cmd/staticcheck@$staticcheck_version"
install deadcode "golang.org/x/tools/cmd/deadcode@$deadcode_version"
install workflowcheck "go.temporal.io/sdk/contrib/tools/workflowcheck@$workflowcheck_version"

# bench/ is a module of its own: staticcheck and workflowcheck run in both.
# deadcode runs once, from bench, over both modules' packages (bench's
# build list holds the product module through its replace), so a function
# only the benchmarks call counts as reached.
status=0
root=$PWD
for mod in . bench; do
  echo "staticcheck ./... (in $mod)" >&2
  (cd "$mod" && "$root/bin/staticcheck" ./...) || status=1
  echo "workflowcheck ./... (in $mod)" >&2
  (cd "$mod" && "$root/bin/workflowcheck" -config "$root/scripts/workflowcheck.yaml" ./...) || status=1
done

echo "deadcode -test (product and bench modules)" >&2
dead=$(cd bench && "$root/bin/deadcode" -test github.com/notebridge/notebridge/...)
if [ -n "$dead" ]; then
  printf 'unreachable functions (use them or remove them):\n%s\n' "$dead" >&2
  status=1
fi
exit $status
