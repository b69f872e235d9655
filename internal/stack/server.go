package stack

import (
	"context"
	"io"

	"go.temporal.io/sdk/client"

	"github.com/notebridge/notebridge/internal/cluster"
	"github.com/notebridge/notebridge/internal/devserver"
)

// Server is the Temporal server a stack runs on: the dev server
// (internal/devserver) unless OnServer starts another, such as a cluster
// on PostgreSQL (internal/cluster, OnCluster). Both have the workflows'
// search attributes registered.
type Server interface {
	// Client is connected to the default namespace; call it again after
	// Restart.
	Client() client.Client
	// HostPort is the frontend's gRPC address.
	HostPort() string
	// Restart stops the server and starts it again on the same data.
	Restart(ctx context.Context) error
	Stop() error
}

// DatabaseRestarter is a Server whose database runs apart from it and can
// be restarted on its own while the server keeps running (a cluster's
// PostgreSQL).
type DatabaseRestarter interface {
	RestartDatabase(ctx context.Context) error
}

// ServerProcess is a Server that names its server process, for CPU
// figures.
type ServerProcess interface {
	ServerPID(ctx context.Context) (int, error)
}

// DatabaseWriter is a Server whose database counts its writes (a
// cluster's PostgreSQL).
type DatabaseWriter interface {
	PGWrites(ctx context.Context) (cluster.Writes, error)
}

// StartServer starts a stack's Temporal server with the workflows'
// search attributes registered; log receives the server's output (the
// ServerLog option; nil discards it).
type StartServer func(ctx context.Context, log io.Writer) (Server, error)

// OnServer makes the stack run on the server start starts instead of a
// dev server; the DevServer option is then unused.
func OnServer(start StartServer) Option { return func(s *Options) { s.server = start } }

// ServerLog sends the Temporal server's output to w, whichever server
// runs (a DevServer option's own Log wins for the dev server).
func ServerLog(w io.Writer) Option { return func(s *Options) { s.serverLog = w } }

// OnCluster starts a fresh cluster (PostgreSQL, the Temporal server, the
// Web UI; scripts/cluster.sh) in a state directory of its own that its
// Stop removes, so no run sees another's workflows. o.Dir is ignored;
// o.Log, if nil, is the server log.
func OnCluster(o cluster.Options) StartServer {
	return func(ctx context.Context, log io.Writer) (Server, error) {
		if o.Log == nil {
			o.Log = log
		}
		return started(cluster.StartFresh(ctx, o))
	}
}

// startDevServer is the default StartServer: a dev server with o's
// options and the workflows' search attributes.
func startDevServer(o devserver.Options) StartServer {
	return func(ctx context.Context, log io.Writer) (Server, error) {
		if o.Log == nil {
			o.Log = log
		}
		return started(devserver.Start(ctx, o))
	}
}

// started is a started server as a Server, or its error (never a Server
// holding a nil pointer).
func started[S Server](s S, err error) (Server, error) {
	if err != nil {
		return nil, err
	}
	return s, nil
}
