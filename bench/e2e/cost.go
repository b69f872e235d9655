package e2e

import (
	"context"
	"fmt"
	"strings"
	"time"

	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/converter"

	graph "github.com/notebridge/notebridge/emulator/graph"
	"github.com/notebridge/notebridge/internal/cluster"
	"github.com/notebridge/notebridge/internal/stack"
	"github.com/notebridge/notebridge/limiter/entity"
)

// Cost is what one migration cost on one Temporal server: scenario 6's
// figures, for comparing servers run by run (bench/cmd/clusterbench).
type Cost struct {
	// Server describes the server.
	Server string
	// Pages is the notebook's size, Done the pages marked done in Notion
	// within the horizon, Took the migration's wall-clock time.
	Pages, Done int
	Took        time.Duration
	Completed   bool
	// Actions are summed over every history in the namespace.
	Actions Actions
	// Limiter are the limiter entity's counters at the end.
	Limiter entity.Stats
	// Permits are the permit round trips the requesters saw: from the
	// request signal a workflow sent to the grant signal it received, by
	// request ID, from the histories.
	Permits []time.Duration
	// WorkerCPU and ServerCPU are user+system CPU of the worker process
	// and the Temporal server process over the migration.
	WorkerCPU, ServerCPU time.Duration
	// PG is PostgreSQL's writes over the migration (nil on a dev server).
	PG *cluster.Writes
}

// PerPage divides n by the pages done.
func (c Cost) PerPage(n float64) float64 { return n / float64(max(1, c.Done)) }

// MeasureCost migrates one notebook of pages pages (20 sections, one image
// and one attachment a page) with the limits raised out of reach, as
// scenario 6 does, on the server start starts (nil: a dev server), and
// returns what it cost. A migration still running at horizon is stopped
// and reported as far as it got.
func (h *Harness) MeasureCost(ctx context.Context, name, server string, start stack.StartServer, pages int, horizon time.Duration) (Cost, error) {
	per := max(1, pages/scaleSections)
	u := User{Name: "bulk", Spec: graph.GenSpec{Seed: 1, Owner: "bulk", Notebooks: 1, SectionsPerContainer: max(1, pages/per),
		PagesPerSection: per, ImagesPerPage: 1, AttachmentsPerPage: 1}}
	c := Cost{Server: server, Pages: u.Spec.SectionsPerContainer * per}
	unlimited := graph.UnlimitedLimits()
	spec := raisedSpec()
	st, err := h.Start(ctx, StackConfig{Name: name, Profile: "onenote", Scale: 1, GraphLimits: &unlimited,
		LimiterSpec: &spec, Users: []User{u}, Server: start})
	if err != nil {
		return c, err
	}
	defer st.Stop()
	spid := st.serverPID(ctx)
	var s0 Usage
	if spid > 0 {
		if s0, err = ReadUsage(spid); err != nil {
			return c, err
		}
	}
	pg0, hasPG, err := st.pgWrites(ctx)
	if err != nil {
		return c, err
	}
	w0, err := st.Worker.Usage()
	if err != nil {
		return c, err
	}
	m, err := st.StartMigration(ctx, u.Name, MigrateOptions{SectionParallelism: scaleSectionParallelism, PageParallelism: scalePageParallelism})
	if err != nil {
		return c, err
	}
	if err := st.Await(ctx, []*Migration{m}, AwaitOptions{Horizon: horizon, Poll: time.Second}); err != nil {
		return c, err
	}
	w1, err := st.Worker.Usage()
	if err != nil {
		return c, err
	}
	c.WorkerCPU = w1.CPU - w0.CPU
	if spid > 0 {
		s1, err := ReadUsage(spid)
		if err != nil {
			return c, err
		}
		c.ServerCPU = s1.CPU - s0.CPU
	}
	if hasPG {
		pg1, _, err := st.pgWrites(ctx)
		if err != nil {
			return c, err
		}
		d := pg1.Sub(pg0)
		c.PG = &d
	}
	c.Done, c.Took, c.Completed = len(st.PagesDone(m.Started)), m.Ended.Sub(m.Started), m.Completed
	lim, err := st.LimiterState(ctx)
	if err != nil {
		return c, err
	}
	c.Limiter = lim.Stats
	hist, err := st.ReadHistories(ctx)
	if err != nil {
		return c, err
	}
	c.Actions = hist.Actions()
	if c.Permits, err = st.permitRoundTrips(ctx); err != nil {
		return c, err
	}
	return c, nil
}

// permitRoundTrips reads every requester history (every workflow but the
// limiter) and times each permit from the request signal that asked for
// it to the grant signal that brought it.
func (s *Stack) permitRoundTrips(ctx context.Context) ([]time.Duration, error) {
	dc := converter.GetDefaultDataConverter()
	var out []time.Duration
	err := s.eachHistory(ctx, func(typ string, events []*historypb.HistoryEvent) {
		if typ == entity.WorkflowName {
			return
		}
		asked := map[string]time.Time{}
		for _, ev := range events {
			at := ev.GetEventTime().AsTime()
			if a := ev.GetSignalExternalWorkflowExecutionInitiatedEventAttributes(); a != nil && a.GetSignalName() == entity.SignalRequest {
				var m entity.Message
				if p := a.GetInput().GetPayloads(); len(p) > 0 && dc.FromPayload(p[0], &m) == nil {
					for _, ask := range m.Acquire {
						if _, seen := asked[ask.RequestID]; !seen {
							asked[ask.RequestID] = at
						}
					}
				}
			}
			if a := ev.GetWorkflowExecutionSignaledEventAttributes(); a != nil && a.GetSignalName() == entity.SignalGrant {
				var g entity.GrantMessage
				if p := a.GetInput().GetPayloads(); len(p) > 0 && dc.FromPayload(p[0], &g) == nil {
					for _, gr := range g.Grants {
						if t, ok := asked[gr.RequestID]; ok {
							out = append(out, at.Sub(t))
							delete(asked, gr.RequestID)
						}
					}
				}
			}
		}
	})
	return out, err
}

// CostTable is the Markdown table of costs, one row per server.
func CostTable(cs []Cost) string {
	var b strings.Builder
	b.WriteString("| server | pages done | took | pages/s | Temporal actions / page | workflow tasks / page | limiter events (granted, released, expired, refused, duplicates, runs) | permit round trip p50 | p99 | worker CPU s / page | server CPU s / page | PostgreSQL rows written / page | PostgreSQL commits / page |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, c := range cs {
		granted := 0
		for _, n := range c.Limiter.Granted {
			granted += n
		}
		rows, commits := "n/a (SQLite)", "n/a"
		if c.PG != nil {
			rows, commits = fmt.Sprintf("%.1f", c.PerPage(float64(c.PG.Rows))), fmt.Sprintf("%.1f", c.PerPage(float64(c.PG.Commits)))
		}
		l := c.Limiter
		fmt.Fprintf(&b, "| %s | %d/%d | %s | %.1f | %.2f | %.2f | %d, %d, %d, %d, %d, %d | %s | %s | %.4f | %.4f | %s | %s |\n",
			c.Server, c.Done, c.Pages, fmtDur(c.Took), float64(c.Done)/max(c.Took.Seconds(), 1e-9),
			c.PerPage(float64(c.Actions.Billed())), c.PerPage(float64(c.Actions.WorkflowTasks)),
			granted, l.Released, l.Expired, l.Refused, l.Duplicates, l.Runs,
			fmtDur(Percentile(c.Permits, 0.5)), fmtDur(Percentile(c.Permits, 0.99)),
			c.PerPage(c.WorkerCPU.Seconds()), c.PerPage(c.ServerCPU.Seconds()), rows, commits)
	}
	return b.String()
}
