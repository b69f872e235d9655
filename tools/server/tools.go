//go:build tools

// Package tools pins the Temporal server and its SQL tool, which
// scripts/cluster.sh builds from source. A module of its own: the server
// at this version needs newer dependencies than the temporal CLI in
// ../go.mod was built with, and that CLI's graph stays as it is.
package tools

import (
	_ "go.temporal.io/server/cmd/server"
	_ "go.temporal.io/server/cmd/tools/sql"
)
