// Package stack starts Note Bridge's whole stack for the demo, the chaos
// run, the benchmarks, the browser test and the end-to-end tests, the way
// net/http/httptest gives every test the same server: a Temporal server
// (the dev server, internal/devserver, or another such as a cluster on
// PostgreSQL: Server, OnServer, OnCluster), the Graph and Notion emulators in this
// process, users signed in through the Graph emulator's identity
// endpoints, the limiter, and workers, in-process or as OS processes
// (Proc, WorkerFlags). What differs between its users is an Option.
package stack

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	graph "github.com/notebridge/notebridge/emulator/graph"
	notionemu "github.com/notebridge/notebridge/emulator/notion"
	"github.com/notebridge/notebridge/internal/devserver"
	"github.com/notebridge/notebridge/workflows"
)

// Options describe a stack. Start's options set them.
type Options struct {
	dev        devserver.Options
	server     StartServer
	serverLog  io.Writer
	graph      graph.Config
	notion     notionemu.Config
	notebooks  []userNotebooks
	wrapGraph  func(http.Handler) http.Handler
	wrapNotion func(http.Handler) http.Handler
	graphTLS   bool
	signIn     *SignInOptions
}

type userNotebooks struct {
	user string
	nbs  []*graph.Notebook
}

// An Option changes what Start starts.
type Option func(*Options)

// DevServer sets the dev server's options (a database file, a log); the
// workflows' search attributes are always registered. OnServer runs
// another server instead.
func DevServer(o devserver.Options) Option { return func(s *Options) { s.dev = o } }

// Graph sets the Graph emulator's configuration.
func Graph(cfg graph.Config) Option { return func(s *Options) { s.graph = cfg } }

// Notion sets the Notion emulator's configuration.
func Notion(cfg notionemu.Config) Option { return func(s *Options) { s.notion = cfg } }

// Notebooks gives user the generated notebooks of spec in the Graph
// emulator.
func Notebooks(user string, spec graph.GenSpec) Option {
	return func(s *Options) {
		s.notebooks = append(s.notebooks, userNotebooks{user, graph.Generate(spec)})
	}
}

// WrapGraph and WrapNotion put a handler in front of an emulator (to
// watch its requests, or to kill a worker in the middle of one).
func WrapGraph(w func(http.Handler) http.Handler) Option {
	return func(s *Options) { s.wrapGraph = w }
}

// WrapNotion puts a handler in front of the Notion emulator.
func WrapNotion(w func(http.Handler) http.Handler) Option {
	return func(s *Options) { s.wrapNotion = w }
}

// GraphTLS serves the Graph emulator over HTTPS, as real Graph is;
// Stack.GraphTLSConfig trusts its certificate.
func GraphTLS() Option { return func(s *Options) { s.graphTLS = true } }

// SignIn signs the users with notebooks in, with the device-code flow
// into an encrypted token store under o.Dir (see SignInUsers).
func SignIn(o SignInOptions) Option { return func(s *Options) { s.signIn = &o } }

// Stack is a running stack. Close stops it.
type Stack struct {
	// Server is the Temporal server and C its client (call
	// Server.Client again after Server.Restart).
	Server Server
	C      client.Client
	// Graph and Notion are the emulators; GraphRoot and NotionURL their
	// base URLs (GraphURL is Graph's API root, GraphRoot + "/v1.0").
	Graph                          *graph.Server
	Notion                         *notionemu.Server
	GraphRoot, GraphURL, NotionURL string
	// GraphTLSConfig trusts the Graph emulator's certificate (GraphTLS).
	GraphTLSConfig *tls.Config
	// NotionToken is an integration token of the Notion emulator, and
	// Root the page migrations go under.
	NotionToken, Root string
	// Notebooks are each user's generated notebooks, Users the users in
	// the order given.
	Notebooks map[string][]*graph.Notebook
	Users     []string
	// SignIn is the users' sign-in (SignIn option), nil otherwise.
	SignIn *Accounts

	closers []func() error
}

// Start starts a stack. Its error leaves nothing running.
func Start(ctx context.Context, opts ...Option) (_ *Stack, err error) {
	var o Options
	for _, opt := range opts {
		opt(&o)
	}
	s := &Stack{Notebooks: map[string][]*graph.Notebook{}}
	defer func() {
		if err != nil {
			_ = s.Close()
		}
	}()
	start := o.server
	if start == nil {
		dev := o.dev
		dev.SearchAttributes = workflows.SearchAttributes()
		start = startDevServer(dev)
	}
	if s.Server, err = start(ctx, o.serverLog); err != nil {
		return nil, err
	}
	s.C = s.Server.Client()
	s.closers = append(s.closers, s.Server.Stop)

	s.Graph = graph.NewServer(o.graph)
	for _, un := range o.notebooks {
		s.Graph.AddNotebooks(un.user, un.nbs...)
		s.Notebooks[un.user] = append(s.Notebooks[un.user], un.nbs...)
		s.Users = append(s.Users, un.user)
	}
	var gh http.Handler = s.Graph
	if o.wrapGraph != nil {
		gh = o.wrapGraph(gh)
	}
	gts := httptest.NewUnstartedServer(gh)
	if o.graphTLS {
		cert, err := graph.NewTLSCert()
		if err != nil {
			return nil, fmt.Errorf("stack: %w", err)
		}
		gts.TLS = cert.ServerConfig()
		gts.StartTLS()
		s.GraphTLSConfig = &tls.Config{RootCAs: cert.Pool()}
	} else {
		gts.Start()
	}
	s.closers = append(s.closers, closeServer(gts))
	s.GraphRoot, s.GraphURL = gts.URL, gts.URL+"/v1.0"
	s.Graph.SetBaseURL(gts.URL)

	s.Notion = notionemu.NewServer(o.notion)
	var nh http.Handler = s.Notion
	if o.wrapNotion != nil {
		nh = o.wrapNotion(nh)
	}
	nts := httptest.NewServer(nh)
	s.closers = append(s.closers, closeServer(nts))
	s.NotionURL, s.NotionToken, s.Root = nts.URL, s.Notion.IssueToken(), s.Notion.RootPageID()

	if o.signIn != nil {
		si := *o.signIn
		if si.Authority == "" {
			si.Authority = s.GraphRoot
		}
		if si.HTTP == nil && s.GraphTLSConfig != nil {
			si.HTTP = &http.Client{Transport: &http.Transport{TLSClientConfig: s.GraphTLSConfig}}
		}
		if s.SignIn, err = SignInUsers(ctx, si, s.Graph, s.Users...); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Close stops the emulators and the Temporal server, last started first.
func (s *Stack) Close() error {
	var errs []error
	for i := len(s.closers) - 1; i >= 0; i-- {
		errs = append(errs, s.closers[i]())
	}
	s.closers = nil
	return errors.Join(errs...)
}

func closeServer(ts *httptest.Server) func() error {
	return func() error {
		ts.CloseClientConnections()
		ts.Close()
		return nil
	}
}

// ForTest starts a stack for one test and closes it when the test ends.
// It skips under -short (the stack needs a Temporal dev server) and fails
// the test when the stack does not start.
func ForTest(t testing.TB, opts ...Option) *Stack {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test: needs a Temporal dev server (skipped with -short)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := Start(ctx, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("stack: close: %v", err)
		}
	})
	return s
}
