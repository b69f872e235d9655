package chaos

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/notebridge/notebridge/internal/cluster"
	"github.com/notebridge/notebridge/internal/devserver"
	"github.com/notebridge/notebridge/workflows"
)

// Server is the Temporal server a chaos run migrates on: the dev server
// on a database file unless Options.Server starts another (a cluster on
// PostgreSQL, internal/cluster).
type Server interface {
	// Client is connected to the default namespace; call it again after
	// Restart.
	Client() client.Client
	HostPort() string
	// Restart stops the server and starts it again on the same data.
	Restart(ctx context.Context) error
	Stop() error
}

// DatabaseRestarter is a Server whose database runs apart from it and can
// be restarted on its own (Options.DatabaseRestarts).
type DatabaseRestarter interface {
	RestartDatabase(ctx context.Context) error
}

// StartServer starts the run's server; dir is the run's work directory,
// log receives the server's output. The server must have the workflows'
// search attributes registered.
type StartServer func(ctx context.Context, dir string, log io.Writer) (Server, error)

// startDevServer is the default StartServer: a dev server on
// dir/temporal.db.
func startDevServer(ctx context.Context, dir string, log io.Writer) (Server, error) {
	s, err := devserver.Start(ctx, devserver.Options{DBFile: filepath.Join(dir, "temporal.db"),
		SearchAttributes: workflows.SearchAttributes(), Log: log})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// OnCluster starts the run's server as a fresh cluster (PostgreSQL, the
// Temporal server, the Web UI; scripts/cluster.sh) in a state directory of
// its own, removed when the run stops it; o.Dir and o.Log are set by the
// run.
func OnCluster(o cluster.Options) StartServer {
	return func(ctx context.Context, _ string, log io.Writer) (Server, error) {
		o.Log = log
		c, err := cluster.StartFresh(ctx, o)
		if err != nil {
			return nil, err
		}
		return c, nil
	}
}

// DatabaseRestart stops the server's database (PostgreSQL) and starts it
// again while the Temporal server keeps running.
const DatabaseRestart Kind = "database restart"

// PlanDatabaseRestarts draws n database restarts spread evenly over the
// middle of the work (each around (k+0.5)/n of 10%..90%, with jitter),
// between the server restarts Plan puts near a third and two thirds.
func PlanDatabaseRestarts(seed uint64, n int, expectedRequests int64) []Event {
	rng := rand.New(rand.NewPCG(seed, 0xdb5e5))
	var events []Event
	for k := range n {
		mid := 0.1 + 0.8*(float64(k)+0.5)/float64(n)
		jitter := 0.05 / float64(n)
		f := mid - jitter + rng.Float64()*2*jitter
		events = append(events, Event{Kind: DatabaseRestart, At: max(1, int64(f*float64(expectedRequests)))})
	}
	return events
}

// restartDatabase restarts the server's database and records it with the
// restarts.
func (r *run) restartDatabase(ctx context.Context) {
	res := r.res
	f := Fired{N: countKind(res.Restarts, DatabaseRestart) + 1, Kind: DatabaseRestart, At: time.Since(r.start), GraphRequests: r.graphRequests()}
	r.say("database restart %d/%d at %d Graph requests", f.N, r.o.DatabaseRestarts, f.GraphRequests)
	t0 := time.Now()
	db, ok := r.srv.(DatabaseRestarter)
	var err error
	if !ok {
		err = errors.New("the server has no database of its own to restart")
	} else {
		rctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
		err = db.RestartDatabase(rctx)
		cancel()
	}
	f.Took = time.Since(t0)
	if err != nil {
		f.Detail = "failed: " + err.Error()
		res.Problems = append(res.Problems, fmt.Sprintf("database restart %d failed: %v", f.N, err))
	} else {
		f.Detail = "fast shutdown, same data directory; the Temporal server kept running"
	}
	res.Restarts = append(res.Restarts, f)
	r.say("database restart %d done in %s", f.N, f.Took.Round(time.Millisecond))
}

// judgeRestarts names the restarts of each kind that did not happen.
func (r *run) judgeRestarts(add func(format string, args ...any)) {
	if got := countKind(r.res.Restarts, ServerRestart); got != r.o.ServerRestarts {
		add("%d of %d server restarts happened during the migration", got, r.o.ServerRestarts)
	}
	if got := countKind(r.res.Restarts, DatabaseRestart); got != r.o.DatabaseRestarts {
		add("%d of %d database restarts happened during the migration", got, r.o.DatabaseRestarts)
	}
}

func countKind(fs []Fired, k Kind) int {
	n := 0
	for _, f := range fs {
		if f.Kind == k {
			n++
		}
	}
	return n
}

// chaosLine is the report's line of what was fired.
func (r *Result) chaosLine() string {
	o := r.Options
	line := fmt.Sprintf("seed %d; %d of %d worker kills (SIGKILL), %d of %d Temporal server restarts", o.Seed, len(r.Kills),
		o.Kills+o.RefreshKills, countKind(r.Restarts, ServerRestart), o.ServerRestarts)
	if o.DatabaseRestarts > 0 {
		line += fmt.Sprintf(", %d of %d database restarts", countKind(r.Restarts, DatabaseRestart), o.DatabaseRestarts)
	}
	return line
}

// databaseRestarts is the report's words for the database restarts, if
// any were planned.
func (r *Result) databaseRestarts() string {
	if r.Options.DatabaseRestarts == 0 {
		return ""
	}
	return " and its database (PostgreSQL) " + times(countKind(r.Restarts, DatabaseRestart))
}
