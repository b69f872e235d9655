//go:build tools

// Package tools pins the command-line tools Note Bridge builds from source,
// keeping their dependency graphs out of the application's go.mod.
package tools

import (
	_ "github.com/temporalio/cli/cmd/temporal"
)
