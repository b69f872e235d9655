// Package depspin holds the module's dependencies in go.mod while the
// packages that use them are written in parallel. It is removed once they land.
package depspin

import (
	_ "github.com/jomei/notionapi"
	_ "go.temporal.io/api/enums/v1"
	_ "go.temporal.io/api/history/v1"
	_ "go.temporal.io/api/serviceerror"
	_ "go.temporal.io/sdk/activity"
	_ "go.temporal.io/sdk/client"
	_ "go.temporal.io/sdk/converter"
	_ "go.temporal.io/sdk/log"
	_ "go.temporal.io/sdk/temporal"
	_ "go.temporal.io/sdk/testsuite"
	_ "go.temporal.io/sdk/worker"
	_ "go.temporal.io/sdk/workflow"
	_ "golang.org/x/net/html"
	_ "golang.org/x/net/html/atom"
	_ "golang.org/x/oauth2"
	_ "golang.org/x/text/unicode/norm"
	_ "golang.org/x/time/rate"
	_ "gonum.org/v1/plot"
	_ "gonum.org/v1/plot/plotter"
	_ "gonum.org/v1/plot/vg"
	_ "gonum.org/v1/plot/plotutil"
)
