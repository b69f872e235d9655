package entity_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/notebridge/notebridge/internal/devserver"
	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/entity"
)

// The history generator records a limiter entity history for
// TestReplaySavedEntityHistories. Until the first release tag the entity
// changes without workflow.GetVersion: re-record after every change to
// the workflow (or to the limit model's decisions), overwriting the saved
// files:
//
//	NOTEBRIDGE_WRITE_HISTORY=$PWD/limiter/entity/testdata/limiter.json \
//	    go test -count=1 -run TestGenerateEntityHistory ./limiter/entity/
//
// (It starts a dev server from bin/temporal, or NOTEBRIDGE_TEMPORAL_CLI.)
// The first run of the entity is written to the named file, every later
// run (continue-as-new) next to it as <name>-run<i>.json. From the first
// release tag on, a change is versioned and recorded to a new name, and
// the files of earlier versions are kept: replaying them checks that
// limiters begun by earlier code still run.

// envWriteHistory names the file TestGenerateEntityHistory writes.
const envWriteHistory = "NOTEBRIDGE_WRITE_HISTORY"

const (
	genResource  = "graph-replay"
	genApp       = "app"
	genTaskQueue = "limiter-history"
	genUser      = "alice"
	// genRequesterName is the registered name of historyRequester.
	genRequesterName = "LimiterHistoryRequester"
	// genContinueAfter is the entity's decision passes per run: more than
	// the scenario's phases before the tail take (about 20, and 35 where
	// the throttles stall the burst), so they all land in the first run,
	// and few enough that the tail reaches a continue-as-new soon (every
	// pass adds about ten events to the history).
	genContinueAfter = 50
)

// genSpec is a small limit table with windows of seconds, so the scenario
// takes seconds. Its user windows (40 in 3 s, 200 in 30 s) have
// adaptation floors of 10 and 50: the scenario's throttles come at counts
// under both floors, so the blame rule lowers no window (lowering the
// short one to its floor would stall the burst after it on the window,
// and the history would show the extra timers). A lowered limit would
// stay lowered throughout (AdaptQuiet), and ReserveIdle is left to the
// default.
func genSpec() limiter.Spec {
	s := limiter.OneNote()
	s.Name = "replay-history"
	s.User = limiter.ScopeSpec{
		Windows:     []limiter.Window{{Limit: 40, Per: limiter.Duration(3 * time.Second)}, {Limit: 200, Per: limiter.Duration(30 * time.Second)}},
		Concurrency: 5,
	}
	s.App = limiter.ScopeSpec{
		Windows:     []limiter.Window{{Limit: 1000, Per: limiter.Duration(3 * time.Second)}, {Limit: 4000, Per: limiter.Duration(30 * time.Second)}},
		Concurrency: 20,
	}
	s.Tuning.ReserveIdle = 0
	s.Tuning.LeaseTTL = limiter.Duration(30 * time.Second)
	s.Tuning.Cooldown = limiter.Duration(300 * time.Millisecond)
	s.Tuning.MaxCooldown = limiter.Duration(2 * time.Second)
	s.Tuning.InferWindow = limiter.Duration(time.Second)
	s.Tuning.AdaptQuiet = limiter.Duration(10 * time.Minute)
	s.Tuning.AdaptEvery = limiter.Duration(time.Minute)
	return s
}

// genInput is the scenario historyRequester plays.
type genInput struct {
	User string `json:"user"`
	// Successes background permits are acquired and released with 200
	// one after the other.
	Successes int `json:"successes"`
	// Throttles background permits are acquired together and released
	// with a 429 that names no scope.
	Throttles int `json:"throttles"`
	// Burst background permits are asked for at once, after one
	// foreground permit (the breaker's probe), each released with 200.
	Burst int `json:"burst"`
	// MaxTail bounds the permits acquired and released one by one until
	// the limiter has continued as new.
	MaxTail int `json:"maxTail"`
}

// genResult is what historyRequester saw.
type genResult struct {
	// RunBeforeTail is the latest limiter run that granted a permit
	// before the tail began.
	RunBeforeTail int `json:"runBeforeTail"`
	// Tail is the number of permits of the tail.
	Tail  int                `json:"tail"`
	Stats entity.ClientStats `json:"stats"`
}

// historyRequester drives the limiter through the scenario of in: the
// successes, the throttles, a foreground permit, the burst, and a tail of
// single permits until a grant comes from the limiter's second run.
func historyRequester(ctx workflow.Context, in genInput) (genResult, error) {
	c := entity.NewClient(ctx, entity.ClientOptions{Resource: genResource, App: genApp, AssumeRunning: true})
	bg := entity.AskOptions{User: in.User, Lane: limiter.Background, Remaining: 100}
	// Every outcome says when the request was sent, as the worker's
	// releases do: the moment its permit arrived.
	one := func(ctx workflow.Context, ask entity.AskOptions) error {
		p, err := c.Acquire(ctx, ask)
		if err != nil {
			return err
		}
		c.Release(ctx, p, limiter.Outcome{Status: 200, Sent: workflow.Now(ctx)})
		return nil
	}
	var res genResult
	for range in.Successes {
		if err := one(ctx, bg); err != nil {
			return res, err
		}
	}
	ps, err := c.AcquireMany(ctx, slices.Repeat([]entity.AskOptions{bg}, in.Throttles))
	if err != nil {
		return res, err
	}
	for _, p := range ps {
		c.Release(ctx, p, limiter.Outcome{Status: 429, Sent: workflow.Now(ctx)})
	}
	// The breaker is open: the foreground permit waits for its cooldown
	// and is the probe that closes it.
	if err := one(ctx, entity.AskOptions{User: in.User, Lane: limiter.Foreground}); err != nil {
		return res, err
	}
	wg := workflow.NewWaitGroup(ctx)
	var burstErr error
	for range in.Burst {
		wg.Add(1)
		workflow.Go(ctx, func(ctx workflow.Context) {
			defer wg.Done()
			if err := one(ctx, bg); err != nil && burstErr == nil {
				burstErr = err
			}
		})
	}
	wg.Wait(ctx)
	if burstErr != nil {
		return res, burstErr
	}
	res.RunBeforeTail = c.Stats.LastRun
	for res.Tail < in.MaxTail && c.Stats.LastRun < 2 {
		if err := one(ctx, bg); err != nil {
			return res, err
		}
		res.Tail++
	}
	if err := c.Flush(ctx); err != nil {
		return res, err
	}
	res.Stats = c.Stats
	return res, nil
}

// TestGenerateEntityHistory runs the limiter entity and historyRequester
// on a dev server and writes the entity's histories, one file per run, for
// the replay test. It is skipped unless envWriteHistory names the file.
func TestGenerateEntityHistory(t *testing.T) {
	out := os.Getenv(envWriteHistory)
	if out == "" {
		t.Skip("set " + envWriteHistory + " to the history file to write")
	}
	srv := devserver.ForTest(t, devserver.Options{})
	c := srv.Client()
	w := worker.New(c, genTaskQueue, worker.Options{})
	entity.Register(w, c)
	w.RegisterWorkflowWithOptions(historyRequester, workflow.RegisterOptions{Name: genRequesterName})
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id := entity.WorkflowID(genResource, genApp)
	spec := genSpec()
	first, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: genTaskQueue}, entity.WorkflowName,
		entity.Input{Resource: genResource, App: genApp, Spec: &spec, ContinueAfter: genContinueAfter})
	if err != nil {
		t.Fatal(err)
	}
	in := genInput{User: genUser, Successes: 4, Throttles: 2, Burst: 12, MaxTail: 100}
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "history-requester", TaskQueue: genTaskQueue},
		genRequesterName, in)
	if err != nil {
		t.Fatal(err)
	}
	var res genResult
	if err := run.Get(ctx, &res); err != nil {
		// Where the limiter stands tells a stuck scenario from a slow one.
		if v, qerr := c.QueryWorkflow(context.Background(), id, "", entity.QueryState); qerr == nil {
			var st entity.State
			if v.Get(&st) == nil {
				t.Logf("limiter state: %+v", st)
			}
		}
		t.Fatalf("requester: %v", err)
	}
	t.Logf("requester: %+v", res)
	if res.RunBeforeTail != 1 {
		t.Fatalf("the scenario before the tail ended in limiter run %d, want 1 (raise genContinueAfter)", res.RunBeforeTail)
	}
	if res.Stats.LastRun < 2 {
		t.Fatalf("the limiter did not continue as new within %d tail permits", res.Tail)
	}
	waitIdle(ctx, t, c, id)
	if err := c.TerminateWorkflow(ctx, id, "", "history recorded"); err != nil {
		t.Fatal(err)
	}

	runID := first.GetRunID()
	for i := 1; runID != ""; i++ {
		hist := fetchHistory(ctx, t, c, id, runID)
		path := out
		if i > 1 {
			path = strings.TrimSuffix(out, ".json") + fmt.Sprintf("-run%d.json", i)
		}
		s := summarize(t, hist)
		if i == 1 && (s.outcomes["429"] != in.Throttles || !s.continued) {
			t.Fatalf("the first run holds %d throttles (want %d) and continued as new: %v", s.outcomes["429"], in.Throttles, s.continued)
		}
		writeHistory(t, path, hist)
		t.Logf("run %d: %s: %d events, %s", i, filepath.Base(path), len(hist.Events), s)
		runID = s.next
	}
}

// waitIdle waits until the entity has no workflow task pending, so its
// history ends with a completed task.
func waitIdle(ctx context.Context, t *testing.T, c client.Client, id string) {
	t.Helper()
	for quiet := 0; quiet < 3; {
		d, err := c.DescribeWorkflow(ctx, id, "")
		if err != nil {
			t.Fatal(err)
		}
		if d.RawResponse.GetPendingWorkflowTask() == nil {
			quiet++
		} else {
			quiet = 0
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// fetchHistory reads one run's whole history.
func fetchHistory(ctx context.Context, t *testing.T, c client.Client, id, runID string) *historypb.History {
	t.Helper()
	it := c.GetWorkflowHistory(ctx, id, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	hist := &historypb.History{}
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatalf("history of %s/%s: %v", id, runID, err)
		}
		hist.Events = append(hist.Events, ev)
	}
	return hist
}

// writeHistory writes hist as the protojson the SDK's replayer reads.
func writeHistory(t *testing.T, path string, hist *historypb.History) {
	t.Helper()
	js, err := protojson.Marshal(hist)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, js, 0o644); err != nil {
		t.Fatal(err)
	}
}

// historySummary is what a limiter history holds, for the log.
type historySummary struct {
	markers   []string       // version markers: change ID=version
	outcomes  map[string]int // released outcomes by HTTP status
	grants    int            // grant signals sent from the workflow
	sends     int            // grant passes sent by local activity (SendGrants)
	timers    int            // timers started
	continued bool           // the run continued as new
	next      string         // the run it continued as
}

func (s historySummary) String() string {
	return fmt.Sprintf("version markers %v, releases by status %v, %d grant passes by local activity, %d grant signals, %d timers, continued as new %v",
		s.markers, s.outcomes, s.sends, s.grants, s.timers, s.continued)
}

// summarize reads the version markers, the released outcomes, the grant
// signals and timers, and the next run of a limiter history.
func summarize(t *testing.T, hist *historypb.History) historySummary {
	t.Helper()
	dc := converter.GetDefaultDataConverter()
	s := historySummary{outcomes: map[string]int{}}
	for _, ev := range hist.Events {
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_MARKER_RECORDED:
			a := ev.GetMarkerRecordedEventAttributes()
			if a.GetMarkerName() == "LocalActivity" {
				s.sends++
				continue
			}
			var change string
			var version int
			if err := dc.FromPayloads(a.GetDetails()["change-id"], &change); err != nil {
				continue
			}
			if err := dc.FromPayloads(a.GetDetails()["version"], &version); err != nil {
				continue
			}
			s.markers = append(s.markers, fmt.Sprintf("%s=%d", change, version))
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
			a := ev.GetWorkflowExecutionSignaledEventAttributes()
			if a.GetSignalName() != entity.SignalRequest {
				continue
			}
			var m entity.Message
			if err := dc.FromPayloads(a.GetInput(), &m); err != nil {
				t.Fatalf("signal %d: %v", ev.GetEventId(), err)
			}
			for _, r := range m.Release {
				s.outcomes[fmt.Sprint(r.Outcome.Status)]++
			}
		case enumspb.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED:
			s.grants++
		case enumspb.EVENT_TYPE_TIMER_STARTED:
			s.timers++
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW:
			s.continued = true
			s.next = ev.GetWorkflowExecutionContinuedAsNewEventAttributes().GetNewExecutionRunId()
		}
	}
	return s
}
