package chaos

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/notebridge/notebridge/internal/stack"
)

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

// restartDatabase restarts the server's database while the Temporal
// server keeps running, and records it with the restarts.
func (r *run) restartDatabase(ctx context.Context) {
	r.restart(ctx, DatabaseRestart, r.o.DatabaseRestarts, func(ctx context.Context) (string, error) {
		db, ok := r.srv.(stack.DatabaseRestarter)
		if !ok {
			return "", errors.New("the server has no database of its own to restart")
		}
		if err := db.RestartDatabase(ctx); err != nil {
			return "", err
		}
		return "fast shutdown, same data directory; the Temporal server kept running", nil
	})
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
