package e2e

import (
	"context"
	"io"

	"go.temporal.io/sdk/client"

	"github.com/notebridge/notebridge/internal/cluster"
	"github.com/notebridge/notebridge/internal/devserver"
	"github.com/notebridge/notebridge/workflows"
)

// TemporalServer is the Temporal server a stack runs on: a dev server
// unless StackConfig.Server starts another (a cluster on PostgreSQL).
type TemporalServer interface {
	Client() client.Client
	HostPort() string
	Stop() error
}

// StartServer starts a stack's Temporal server with the workflows'
// search attributes registered; log receives its output.
type StartServer func(ctx context.Context, log io.Writer) (TemporalServer, error)

// startDevServer is the default StartServer: a dev server with an
// in-memory database.
func startDevServer(ctx context.Context, log io.Writer) (TemporalServer, error) {
	s, err := devserver.Start(ctx, devserver.Options{SearchAttributes: workflows.SearchAttributes(), Log: log})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// OnCluster starts each stack's server as a fresh cluster
// (internal/cluster), removed when the stack stops.
func OnCluster(o cluster.Options) StartServer {
	return func(ctx context.Context, log io.Writer) (TemporalServer, error) {
		o.Log = log
		c, err := cluster.StartFresh(ctx, o)
		if err != nil {
			return nil, err
		}
		return c, nil
	}
}

// serverPID is the process ID of the stack's Temporal server, or 0: the
// cluster's server process, or the dev server this process started.
func (s *Stack) serverPID(ctx context.Context) int {
	if c, ok := s.dev.(interface {
		ServerPID(context.Context) (int, error)
	}); ok {
		pid, err := c.ServerPID(ctx)
		if err != nil {
			return 0
		}
		return pid
	}
	return childPID("temporal")
}

// pgWrites reads the cluster's PostgreSQL write counters; ok is false on
// a dev server.
func (s *Stack) pgWrites(ctx context.Context) (w cluster.Writes, ok bool, err error) {
	c, ok := s.dev.(interface {
		PGWrites(context.Context) (cluster.Writes, error)
	})
	if !ok {
		return w, false, nil
	}
	w, err = c.PGWrites(ctx)
	return w, true, err
}
