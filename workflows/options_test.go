package workflows

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"testing"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/limiter/entity"
	"github.com/notebridge/notebridge/notion"
)

// TestSendBounds computes, from the constants each layer uses, the most
// times one upstream request can be sent, and fails if a layer was raised
// past the bound the options state (notionSendBound, graphSendBound).
func TestSendBounds(t *testing.T) {
	attempts := func(o workflow.ActivityOptions) int {
		if o.RetryPolicy == nil || o.RetryPolicy.MaximumAttempts == 0 {
			t.Fatalf("%q: no bounded retry policy: Temporal would retry it forever", o.Summary)
		}
		return int(o.RetryPolicy.MaximumAttempts)
	}
	client := notion.DefaultRetryPolicy().MaxAttempts
	permits := entity.Call{Options: graphOptions("content")}.WithDefaults().MaxAttempts
	graphTemporal := attempts(entity.Call{Options: graphOptions("content")}.WithDefaults().Options)
	resourceTemporal := attempts(entity.Call{Options: graphResourcesOptions("resources"), MaxAttempts: 1}.WithDefaults().Options)
	for _, tc := range []struct {
		request string
		sends   int
		bound   int
	}{
		{"Notion page write", client * attempts(notionWriteOptions("write")) * maxPageRuns, notionSendBound},
		{"Notion link rewrite", client * attempts(notionLinkOptions("links")) * maxPageRuns, notionSendBound},
		{"Notion rows query", client * attempts(notionReadOptions("rows")), notionSendBound},
		{"Notion layout", client * attempts(notionLayoutOptions("layout")), notionSendBound},
		{"Notion report", client * attempts(notionReportOptions("report")), notionSendBound},
		{"Graph page content", permits * graphTemporal * maxPageRuns, graphSendBound},
		{"Graph resources", maxResourceAttempts * resourceTemporal * maxPageRuns, graphSendBound},
	} {
		t.Logf("%s: at most %d sends (bound %d)", tc.request, tc.sends, tc.bound)
		if tc.sends > tc.bound {
			t.Errorf("%s can be sent %d times, over the stated bound of %d: lower a layer, or state the new bound (options.go)",
				tc.request, tc.sends, tc.bound)
		}
	}
	// The bounds are what the layers allow, not slack above it.
	if got := client * attempts(notionWriteOptions("write")) * maxPageRuns; got != notionSendBound {
		t.Errorf("notionSendBound %d, but the layers multiply to %d: state the bound they give", notionSendBound, got)
	}
	if got := permits * graphTemporal * maxPageRuns; got != graphSendBound {
		t.Errorf("graphSendBound %d, but the layers multiply to %d: state the bound they give", graphSendBound, got)
	}
}

// TestLostWorkerRule walks every activity option set of options.go and
// fails on one that breaks the lost-worker rule: a lost worker is noticed
// within lostWorkerNotice (a short start-to-close timeout, or a heartbeat
// timeout), and the migration survives lostWorkers lost workers in a row
// (the set's own attempts, or the runs of the page or pass a session set
// belongs to, or the permits of entity.Call for Graph). A set added to
// options.go without a row here fails the test too.
func TestLostWorkerRule(t *testing.T) {
	type rerun int
	const (
		alone   rerun = iota // nothing runs it again but its retry policy
		session              // on a worker session: its page or pass runs again (maxPageRuns)
		permit               // a Graph call: entity.Call retries with a new permit
	)
	for _, tc := range []struct {
		name  string
		opts  workflow.ActivityOptions
		rerun rerun
	}{
		{"graphOptions", graphOptions("content"), permit},
		{"graphResourcesOptions", graphResourcesOptions("resources"), session},
		{"notionWriteOptions", notionWriteOptions("write"), session},
		{"notionReadOptions", notionReadOptions("rows"), alone},
		{"notionLayoutOptions", notionLayoutOptions("layout"), alone},
		{"notionLinkOptions", notionLinkOptions("links"), session},
		{"notionReportOptions", notionReportOptions("report"), alone},
		{"housekeepingOptions", housekeepingOptions("clean"), session},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.opts
			notice := o.StartToCloseTimeout
			if o.HeartbeatTimeout > 0 {
				notice = min(notice, o.HeartbeatTimeout)
			}
			if o.StartToCloseTimeout <= 0 {
				t.Fatalf("no start-to-close timeout: a lost worker is never noticed")
			}
			if notice > lostWorkerNotice {
				t.Errorf("a lost worker is noticed after %s (start-to-close %s, heartbeat %s), over %s: set a heartbeat timeout",
					notice, o.StartToCloseTimeout, o.HeartbeatTimeout, lostWorkerNotice)
			}
			// A heartbeat timeout the activities' ticker cannot keep
			// up with would take a live worker for a lost one.
			if hb := o.HeartbeatTimeout; hb > 0 && hb < 3*5*time.Second {
				t.Errorf("heartbeat timeout %s leaves fewer than three heartbeats (every 5 s) to miss", hb)
			}
			var survives int
			switch tc.rerun {
			case alone:
				if o.RetryPolicy == nil || o.RetryPolicy.MaximumAttempts == 0 {
					t.Fatal("no bounded retry policy")
				}
				survives = int(o.RetryPolicy.MaximumAttempts) - 1
			case session:
				survives = maxPageRuns - 1
			case permit:
				survives = entity.Call{Options: o}.WithDefaults().MaxAttempts - 1
			}
			t.Logf("noticed within %s; survives %d lost workers", notice, survives)
			if survives < lostWorkers {
				t.Errorf("survives %d lost workers, want at least %d", survives, lostWorkers)
			}
		})
	}

	// Every set options.go declares has its row above.
	fs := token.NewFileSet()
	f, err := parser.ParseFile(fs, "options.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var sets []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Type.Results == nil || len(fn.Type.Results.List) != 1 {
			continue
		}
		if sel, ok := fn.Type.Results.List[0].Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "ActivityOptions" {
			sets = append(sets, fn.Name.Name)
		}
	}
	checked := []string{"graphOptions", "graphResourcesOptions", "notionWriteOptions", "notionReadOptions",
		"notionLayoutOptions", "notionLinkOptions", "notionReportOptions", "housekeepingOptions"}
	if len(sets) == 0 {
		t.Fatal("found no option set in options.go")
	}
	for _, s := range sets {
		if !slices.Contains(checked, s) {
			t.Errorf("option set %s is not checked by this test: add its row", s)
		}
	}
}
