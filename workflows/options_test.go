package workflows

import (
	"testing"

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
