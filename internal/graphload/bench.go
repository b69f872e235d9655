package graphload

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/notebridge/notebridge/emulator/graph"
	"github.com/notebridge/notebridge/limiter"
)

// FreeSpec is a limits spec whose budget never binds, so that benchmarks
// measure the limiter's protocol and Temporal, not the Graph limits.
func FreeSpec() limiter.Spec {
	s := limiter.OneNote()
	s.Name = "free"
	s.User = limiter.ScopeSpec{Windows: []limiter.Window{{Limit: 10_000_000, Per: limiter.Duration(time.Minute)}}, Concurrency: 1000}
	s.App = limiter.ScopeSpec{Windows: []limiter.Window{{Limit: 10_000_000, Per: limiter.Duration(time.Minute)}}, Concurrency: 1000}
	return s
}

// ServeGraph serves a Graph emulator without limits on loopback, with
// one small notebook for each owner, and returns the Activities that call
// it (each user's token is its owner's; users without an owner of their
// own borrow the first one's) and a function that stops it.
func ServeGraph(owners []string, users []string) (*Activities, func(), error) {
	g := graph.NewServer(graph.Config{Limits: graph.UnlimitedLimits(), Seed: 1})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, fmt.Errorf("graphload: listen: %w", err)
	}
	hs := &http.Server{Handler: g}
	go hs.Serve(ln)
	tokens := map[string]string{}
	for _, o := range owners {
		g.AddNotebooks(o, graph.Generate(graph.GenSpec{Seed: 1, Owner: o, Notebooks: 1, SectionsPerContainer: 1, PagesPerSection: 1})...)
		tokens[o] = g.IssueToken(o, []string{"Notes.Read"}, 24*time.Hour)
	}
	for _, u := range users {
		if _, ok := tokens[u]; !ok && len(owners) > 0 {
			tokens[u] = tokens[owners[0]]
		}
	}
	a := &Activities{BaseURL: "http://" + ln.Addr().String(), Tokens: tokens, HTTP: &http.Client{Timeout: 10 * time.Second}}
	return a, func() { hs.Close() }, nil
}

// EachEvent calls fn with every history event of every run of workflow
// id (a limiter that continued as new has several), run by run, oldest
// event first; run counts the runs from 0.
func EachEvent(ctx context.Context, c client.Client, id string, fn func(run int, e *historypb.HistoryEvent)) error {
	var runIDs []string
	var next []byte
	for {
		resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: fmt.Sprintf("WorkflowId = '%s'", id), NextPageToken: next})
		if err != nil {
			return fmt.Errorf("graphload: list runs of %s: %w", id, err)
		}
		for _, e := range resp.GetExecutions() {
			runIDs = append(runIDs, e.GetExecution().GetRunId())
		}
		if next = resp.GetNextPageToken(); len(next) == 0 {
			break
		}
	}
	for i, run := range runIDs {
		it := c.GetWorkflowHistory(ctx, id, run, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			e, err := it.Next()
			if err != nil {
				return fmt.Errorf("graphload: history of %s: %w", id, err)
			}
			fn(i, e)
		}
	}
	return nil
}
