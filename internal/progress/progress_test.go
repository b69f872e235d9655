package progress

import (
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/notebridge/notebridge/internal/seconds"
	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/entity"
	"github.com/notebridge/notebridge/workflows"
)

func TestTotals(t *testing.T) {
	started := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	sec := func(id, status string, pages, failed int, errText string) workflows.SectionSummary {
		return workflows.SectionSummary{SectionRef: workflows.SectionRef{ID: id, Path: "NB / " + id}, Status: status,
			Pages: pages, Failed: failed, Error: errText}
	}
	running := func(id string, pages int) workflows.SectionSummary {
		s := sec(id, workflows.SectionRunning, 0, 0, "")
		s.Live = &workflows.SectionPulse{Pages: pages}
		return s
	}
	for _, tc := range []struct {
		name  string
		snap  Snapshot
		scan  map[string]int
		pages string // pagesText
		want  Totals
	}{
		{
			name: "running, pending known from the scan",
			snap: Snapshot{Status: enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, Started: started, Now: started.Add(10 * time.Minute), ProgressOK: true,
				Progress: workflows.NotebookProgress{Phase: "migrating", PagesListed: 30, PagesDone: 18, PagesFailed: 2, Permits: 21, Waited: 2 * time.Minute, Sections: []workflows.SectionSummary{
					sec("a", workflows.SectionDone, 10, 0, ""), running("b", 20), sec("c", workflows.SectionPending, 0, 0, "")}},
				Sections: map[string]workflows.SectionProgress{"b": {Pages: 20, Done: 8, Failed: 2, Remaining: 10, Permits: 9, Waited: time.Minute, Phase: "migrating"}}},
			scan:  map[string]int{"c": 30},
			pages: "18/60 pages",
			// 20 pages worked in 10 minutes, 40 left: 20 minutes.
			want: Totals{Pages: 60, Done: 18, Failed: 2, Remaining: 40, SecDone: 1, SecRunning: 1, SecPending: 1,
				Permits: 21, Waited: 2 * time.Minute, ETA: 20 * time.Minute},
		},
		{
			name: "a section not listed yet and not in a scan",
			snap: Snapshot{Status: enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, Started: started, Now: started.Add(time.Minute), ProgressOK: true,
				Progress: workflows.NotebookProgress{Phase: "migrating", ETA: 5 * time.Minute, PagesListed: 4, PagesDone: 4, Sections: []workflows.SectionSummary{
					sec("a", workflows.SectionDone, 4, 0, ""), sec("b", workflows.SectionRunning, 0, 0, "")}},
				Sections: map[string]workflows.SectionProgress{"b": {Phase: "listing"}}},
			pages: "4/4+ pages",
			want:  Totals{Pages: 4, Done: 4, Unknown: 1, SecDone: 1, SecRunning: 1, ETA: 5 * time.Minute},
		},
		{
			name: "a failed section that never listed its pages counts as left",
			snap: Snapshot{Status: enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, Started: started, Now: started.Add(time.Minute), ProgressOK: true,
				Progress: workflows.NotebookProgress{Phase: "waiting for retry-section, retry-failed or finish", PagesListed: 4, PagesDone: 3, PagesFailed: 1, Sections: []workflows.SectionSummary{
					sec("a", workflows.SectionDone, 4, 1, ""), sec("b", workflows.SectionFailed, 0, 0, "404")}}},
			scan:  map[string]int{"b": 6},
			pages: "3/10 pages",
			want:  Totals{Pages: 10, Done: 3, Failed: 1, Remaining: 6, SecDone: 1, SecFailed: 1}, // no ETA while it waits
		},
		{
			name: "completed: the report's sections",
			snap: Snapshot{Status: enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, Started: started, Now: started.Add(time.Hour),
				Report: &workflows.NotebookReport{Pages: 12, Skipped: 5, Permits: 30, PermitsWaited: seconds.Of(time.Minute), Sections: []workflows.SectionSummary{
					{SectionRef: workflows.SectionRef{ID: "a"}, Status: workflows.SectionDone, Pages: 5, Skipped: 5},
					{SectionRef: workflows.SectionRef{ID: "b"}, Status: workflows.SectionDone, Pages: 7}}}},
			pages: "12/12 pages",
			want:  Totals{Pages: 12, Done: 12, Unchanged: 5, SecDone: 2, Permits: 30, Waited: time.Minute},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := TotalsOf(&tc.snap, tc.scan)
			if got != tc.want {
				t.Errorf("totals\n got %+v\nwant %+v", got, tc.want)
			}
			if got.PagesText() != tc.pages {
				t.Errorf("pagesText %q, want %q", got.PagesText(), tc.pages)
			}
		})
	}
}

func TestLineAndBudget(t *testing.T) {
	st := &entity.State{Model: limiter.Snapshot{Users: []limiter.UserUsage{{User: "alice", Queued: [2]int{0, 4}, ScopeUsage: limiter.ScopeUsage{
		Windows:  []limiter.WindowUsage{{Per: seconds.Of(time.Minute), Limit: 120, Effective: 120, Used: 96}, {Per: seconds.Of(time.Hour), Limit: 400, Effective: 300, Used: 290}},
		InFlight: 3, EffectiveConcurrency: 5, Breaker: limiter.BreakerInfo{State: "open", Reason: "429 from Graph"}}}}}}
	snap := &Snapshot{Status: enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, User: "alice", Limiter: st, ProgressOK: true,
		Progress: workflows.NotebookProgress{Phase: "migrating"}}
	got := Line(snap, Totals{Pages: 160, Done: 52, Remaining: 108, Permits: 80, Waited: 123 * time.Second, ETA: 90 * time.Second})
	want := "52/160 pages done, 0 failed, 108 left · ETA 1m30s · permit waits 2m3s (80 Graph permits) · " +
		"budget alice 96/120 per 1m, 290/300 per 1h (lowered from 400), 3/5 at once, breaker open (429 from Graph), 4 queued · migrating"
	if got != want {
		t.Errorf("line\n got %s\nwant %s", got, want)
	}
	if b := BudgetText(st, "bob"); b != "bob idle" {
		t.Errorf("budget of a user the limiter does not know: %q", b)
	}
	if b := Bar(Totals{Pages: 4, Done: 1}, 8); b != "[##......]" {
		t.Errorf("bar: %s", b)
	}
}

func TestShortDur(t *testing.T) {
	for d, want := range map[time.Duration]string{
		time.Minute: "1m", time.Hour: "1h", 90 * time.Minute: "1h30m", 61 * time.Second: "1m1s", 0: "0s",
		1500 * time.Millisecond: "2s", 250 * time.Millisecond: "250ms", time.Second: "1s",
	} {
		if got := ShortDur(d); got != want {
			t.Errorf("ShortDur(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestHealthRendering(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.Local)
	running := enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
	graph503 := &workflows.UpstreamError{Service: workflows.ServiceGraph, Code: "503", Type: "GraphTransient", Message: "HTTP 503: Service Unavailable",
		Section: "NB / Plans", At: t0.Add(9 * time.Minute), Since: t0.Add(time.Minute), Ongoing: true}
	notion := &workflows.UpstreamError{Service: workflows.ServiceNotion, Type: "NotionRetryable", Message: "HTTP 502 Bad Gateway",
		At: t0.Add(2 * time.Minute), Since: t0.Add(2 * time.Minute)}
	openUntil := limiter.BreakerInfo{State: "open", Until: t0.Add(11 * time.Minute), Reason: "server errors"}
	for _, tc := range []struct {
		name  string
		snap  Snapshot
		short string
		rows  [][2]string
	}{
		{
			name:  "all well: no health rows",
			snap:  Snapshot{Status: running, Started: t0, Now: t0.Add(time.Minute), ProgressOK: true, Progress: workflows.NotebookProgress{Phase: "migrating", Health: workflows.Health{State: "ok"}}},
			short: "",
		},
		{
			name: "a Graph outage stalls the migration; the limiter's breaker holds it",
			snap: Snapshot{Status: running, User: "alice", Started: t0, Now: t0.Add(10 * time.Minute), ProgressOK: true,
				Limiter: &entity.State{Model: limiter.Snapshot{App: limiter.ScopeUsage{Breaker: openUntil}}},
				Progress: workflows.NotebookProgress{Phase: "migrating", Health: workflows.Health{State: "stalled", LastPage: t0.Add(time.Minute),
					LastError: graph503, Stall: "stalled: no page done for 9m0s (the Graph budget explains 4m57s): Graph has been failing since 10:01:00 UTC",
					Next: "temporal workflow query --workflow-id limiter/graph-onenote/app --name state"}}},
			short: "STALLED 9m: Graph 503",
			rows: [][2]string{
				{"last error", `Graph 503 (failing since 10:01:00, last at 10:09:00 in "NB / Plans"): HTTP 503: Service Unavailable`},
				{"breaker", "app breaker open until 10:11:00: server errors"},
				{"stall", "stalled: no page done for 9m0s (the Graph budget explains 4m57s): Graph has been failing since 10:01:00 UTC"},
				{"next", "temporal workflow query --workflow-id limiter/graph-onenote/app --name state"},
			},
		},
		{
			name: "the breaker as the notebook heard it when the limiter did not answer",
			snap: Snapshot{Status: running, Started: t0, Now: t0.Add(10 * time.Minute), ProgressOK: true,
				Progress: workflows.NotebookProgress{Phase: "migrating", Health: workflows.Health{State: "failing", LastError: graph503,
					Breaker: &workflows.BreakerHold{Scope: "user", Until: t0.Add(11 * time.Minute), Reason: "throttled (429/20166)"}}}},
			short: "Graph 503 since 10:01:00",
			rows: [][2]string{
				{"last error", `Graph 503 (failing since 10:01:00, last at 10:09:00 in "NB / Plans"): HTTP 503: Service Unavailable`},
				{"breaker", "user breaker open until 10:11:00: throttled (429/20166) (as the notebook last heard)"},
			},
		},
		{
			name: "waiting for a retry after Notion failed, since recovered",
			snap: Snapshot{Status: running, Started: t0, Now: t0.Add(10 * time.Minute), ProgressOK: true,
				Progress: workflows.NotebookProgress{Phase: workflows.PhaseWaiting, Health: workflows.Health{State: "waiting", LastError: notion,
					Next: `starter retry --user alice --notebook nb --section "NB / Plans"`}}},
			short: "",
			rows: [][2]string{
				{"last error", "Notion NotionRetryable (recovered since 10:02:00): HTTP 502 Bad Gateway"},
				{"next", `starter retry --user alice --notebook nb --section "NB / Plans"`},
			},
		},
		{
			name:  "completed: the last error stays, no stall or next step",
			snap:  Snapshot{Status: enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, Started: t0, Now: t0.Add(time.Hour), ProgressOK: true, Progress: workflows.NotebookProgress{Phase: "done", Health: workflows.Health{State: "done", LastError: notion, Next: "x", Stall: "y"}}},
			short: "",
			rows:  [][2]string{{"last error", "Notion NotionRetryable (recovered since 10:02:00): HTTP 502 Bad Gateway"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := HealthShort(&tc.snap); got != tc.short {
				t.Errorf("short %q, want %q", got, tc.short)
			}
			got := HealthLines(&tc.snap)
			if len(got) != len(tc.rows) {
				t.Fatalf("rows\n got %q\nwant %q", got, tc.rows)
			}
			for i := range got {
				if got[i] != tc.rows[i] {
					t.Errorf("row %d\n got %q\nwant %q", i, got[i], tc.rows[i])
				}
			}
			if line := Line(&tc.snap, TotalsOf(&tc.snap, nil)); tc.short != "" && !strings.HasSuffix(line, " · "+tc.short) {
				t.Errorf("line %q does not end with the health %q", line, tc.short)
			}
		})
	}
}

// TestTotalsAreTheNotebooks: the counts are the notebook's sums, not the
// running section's own query, which reads less after a retry.
func TestTotalsAreTheNotebooks(t *testing.T) {
	snap := &Snapshot{Status: enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, ProgressOK: true,
		Sections: map[string]workflows.SectionProgress{"a": {Pages: 10, Done: 1, Remaining: 9}}, Progress: workflows.NotebookProgress{
			Phase: "migrating", PagesListed: 10, PagesDone: 4, PagesFailed: 1, PagesSkipped: 2, Sections: []workflows.SectionSummary{{SectionRef: workflows.SectionRef{ID: "a"}, Status: workflows.SectionRunning,
				Live: &workflows.SectionPulse{Pages: 10, Done: 4, Failed: 1, Skipped: 2, Phase: "migrating"}}}}}
	got := TotalsOf(snap, nil)
	if want := (Totals{Pages: 10, Done: 4, Failed: 1, Unchanged: 2, Remaining: 5, SecRunning: 1}); got != want {
		t.Errorf("totals\n got %+v\nwant %+v", got, want)
	}
}
