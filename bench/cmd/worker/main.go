// Command worker is the product worker (internal/workerapp) with one more
// flag for the end-to-end benchmarks: -baseline runs the workflows' Graph
// calls under a baseline pacing policy (bench/baseline) instead of the
// limiter. Without -baseline it is the product worker.
package main

import (
	"flag"
	"os"

	"github.com/notebridge/notebridge/bench/baseline"
	"github.com/notebridge/notebridge/internal/workerapp"
	"github.com/notebridge/notebridge/workflows"
)

func main() {
	var policy string
	os.Exit(workerapp.Main(os.Args[1:], workerapp.Extension{
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&policy, "baseline", "", "pace Graph calls by a baseline instead of the limiter: backoff or queue-retry (benchmarks only)")
		},
		Workflows: func(w *workflows.Workflows) error { return useBaseline(w, policy) },
	}))
}

// useBaseline gives w the callers of the baseline policy names; "" leaves
// the limiter.
func useBaseline(w *workflows.Workflows, policy string) error {
	if policy == "" {
		return nil
	}
	p, err := baseline.ParsePolicy(policy)
	if err != nil {
		return err
	}
	w.NewCaller = baseline.NewCaller(p)
	return nil
}
