//go:build tools

// Package tools pins the command-line tools Note Bridge builds from source,
// keeping their dependency graphs out of the application's go.mod.
package tools

import (
	_ "github.com/temporalio/cli/cmd/temporal"
	// The Temporal Web UI server at the version the CLI embeds, for
	// scripts/cluster.sh.
	_ "github.com/temporalio/ui-server/v2/cmd/server"
)
