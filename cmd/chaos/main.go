// Command chaos runs a migration under fire (`make chaos`): a 200-page
// notebook migrates while the worker, a separate process, is killed with
// SIGKILL 20 times at random moments (some while a Graph request or a
// Notion write is in flight) and restarted each time, and the Temporal dev
// server is restarted twice on the same database file. Then the Notion
// emulator's export is compared with the source block for block, the Graph
// emulator's referee is asked for windows over a limit, and every workflow
// history is searched for the Graph and Notion tokens. It prints a report,
// writes it as Markdown with -out, and exits 1 if anything was wrong.
//
//	go run ./cmd/chaos                                  # the full run
//	go run ./cmd/chaos -pages 40 -kills 3 -server-restarts 1 -seed 7
//	go run ./cmd/chaos -pages 40 -kills 2 -refresh-kills 6 -token-ttl 45s  # kills inside token refreshes
//	go run ./cmd/chaos ... -strict-refresh-rotation                       # the same on an identity platform that revokes redeemed refresh tokens
//	go run ./cmd/chaos -users 5 -workers 4 -pages 40 -cluster -database-restarts 1  # five users, four workers, on PostgreSQL
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/notebridge/notebridge/internal/chaos"
	"github.com/notebridge/notebridge/internal/cluster"
	"github.com/notebridge/notebridge/internal/stack"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run parses args, runs the chaos and returns the exit code: 0 passed, 1
// failed, 2 bad usage or the harness could not run.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var o chaos.Options
	var out string
	fs := flag.NewFlagSet("chaos", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: chaos [flags]\n\nMigrates a generated notebook while killing the worker and restarting Temporal, then checks the result.\n\n")
		fs.PrintDefaults()
	}
	fs.IntVar(&o.Pages, "pages", 200, "pages in each user's notebook (4 sections; rounded up to a multiple of 4)")
	fs.IntVar(&o.Users, "users", 1, "how many users migrate a notebook of their own at once (alice, bob, carol, ...), each verified on its own")
	fs.IntVar(&o.Workers, "workers", 1, "how many worker processes serve the migrations (the kills strike each of them)")
	fs.IntVar(&o.Kills, "kills", 20, "how many times a worker is killed with SIGKILL (and restarted)")
	fs.IntVar(&o.ServerRestarts, "server-restarts", 2, "how many times the Temporal dev server is restarted")
	fs.IntVar(&o.RefreshKills, "refresh-kills", 0, "how many more times the worker is killed inside a token refresh (half while the answer is on its way, half just after it arrived)")
	fs.DurationVar(&o.TokenTTL, "token-ttl", time.Hour, "lifetime of the Graph emulator's access tokens, not time-scaled (45s: a refresh every half minute)")
	fs.BoolVar(&o.StrictRefreshRotation, "strict-refresh-rotation", false, "the Graph emulator revokes a refresh token when it is redeemed (Microsoft does not): lost sign-ins are counted, not failures")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed of the moments and kinds of kills and restarts")
	fs.Float64Var(&o.TimeScale, "scale", 60, "time scale of the Graph limits (60: an hour lasts a minute)")
	fs.Float64Var(&o.NotionRate, "notion-rate", 30, "Notion requests per second (emulator limit and worker pace)")
	fs.IntVar(&o.PagesPerRun, "pages-per-run", 25, "pages a section handles before it continues as new")
	fs.DurationVar(&o.Timeout, "timeout", 60*time.Minute, "how long the migration may take")
	fs.StringVar(&o.Dir, "dir", "", "work directory, kept afterwards (logs, Temporal database, histories); default a temporary one, removed")
	fs.StringVar(&out, "out", "", "write the report as Markdown to this file")
	onCluster := fs.Bool("cluster", false, "run on a fresh PostgreSQL + Temporal cluster (scripts/cluster.sh, on free ports of its own, beside a running `make cluster`) instead of the dev server")
	fs.IntVar(&o.DatabaseRestarts, "database-restarts", 0, "how many times PostgreSQL is restarted while the Temporal server runs (needs -cluster)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "chaos: unexpected arguments %v: every setting is a flag (see -help)\n", fs.Args())
		return 2
	}
	o.Log = stdout
	if *onCluster {
		o.Server = stack.OnCluster(cluster.Options{Bin: os.Getenv("NOTEBRIDGE_CLUSTER_BIN")})
	}
	res, err := chaos.Run(ctx, o)
	if err != nil {
		fmt.Fprintln(stderr, "chaos:", err)
		if res == nil || ctx.Err() != nil {
			return 2
		}
	}
	res.WriteText(stdout)
	if out != "" {
		if err := os.WriteFile(out, []byte(res.Markdown()), 0o644); err != nil {
			fmt.Fprintln(stderr, "chaos: -out:", err)
			return 2
		}
		fmt.Fprintf(stdout, "  report:                  %s\n", out)
	}
	if err != nil || !res.OK() {
		return 1
	}
	return 0
}
