//go:build tools

// Package vuln pins govulncheck and holds vulndb-build, which turns the Go
// vulnerability database's source module (golang.org/x/vulndb, served by the
// module proxy) into the database layout govulncheck reads with -db file://,
// so scripts/govulncheck.sh works where vuln.go.dev is unreachable.
//
// It is a module of its own, apart from tools/, so that govulncheck's
// dependencies (newer golang.org/x/sys, x/sync, x/tools) never change the
// versions the pinned temporal CLI is built with.
package vuln

import (
	_ "golang.org/x/vuln/cmd/govulncheck"
)
