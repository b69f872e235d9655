package e2e

import (
	"context"

	"github.com/notebridge/notebridge/internal/cluster"
	"github.com/notebridge/notebridge/internal/stack"
)

// serverPID is the process ID of the stack's Temporal server, or 0: the
// cluster's server process, or the dev server this process started.
func (s *Stack) serverPID(ctx context.Context) int {
	if c, ok := s.Server.(stack.ServerProcess); ok {
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
	c, ok := s.Server.(stack.DatabaseWriter)
	if !ok {
		return w, false, nil
	}
	w, err = c.PGWrites(ctx)
	return w, true, err
}
