// Command notion-emulator runs the Notion API emulator as a standalone HTTP
// server. It prints the integration token(s) it accepts and the ID of the
// root page the integration can write under; the workspace can be browsed
// at /_emulator/view and exported at /_emulator/export.
//
//	go run ./emulator/cmd/notion-emulator -addr 127.0.0.1:8082 -token secret_demo
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/notebridge/notebridge/emulator/notion"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "notion-emulator:", err)
		os.Exit(1)
	}
}

// options are the parsed command-line flags.
type options struct {
	addr, tokens, tokenCaps, rootTitle, logLevel string
	seed                                         uint64
	rate, wsRate                                 float64
	burst, wsBurst, blockLimit                   int
	maxFile                                      int64
	uploadExpiry                                 time.Duration
	faults                                       notion.Faults
	// The 2026 limits (notion.Config.Plan and what goes with it).
	plan                                  notion.Plan
	tokenType                             notion.TokenType
	members, connBudget, wsBudget, blocks int
	wsWindow                              time.Duration
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("notion-emulator", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.addr, "addr", "127.0.0.1:8082", "listen address (host:port); loopback by default")
	fs.StringVar(&o.tokens, "token", "", "comma-separated integration tokens to accept (empty: issue one and print it)")
	fs.StringVar(&o.tokenCaps, "token-caps", "", "capabilities of -token tokens, as token=cap+cap,… (caps: read_content, update_content, insert_content, read_comments, insert_comments, none); tokens not named have all")
	fs.Uint64Var(&o.seed, "seed", 1, "seed for IDs and faults")
	fs.Float64Var(&o.rate, "rate", 3, "requests per second per token (negative: unlimited)")
	fs.IntVar(&o.burst, "burst", 10, "token bucket size per token")
	fs.Float64Var(&o.wsRate, "workspace-rate", 0, "requests per second shared by all tokens (0: no workspace limit)")
	fs.IntVar(&o.wsBurst, "workspace-burst", 10, "workspace bucket size")
	fs.IntVar(&o.blockLimit, "block-limit", 0, "lifetime workspace block limit (0: unlimited; Free plan with several members: 1000)")
	fs.Int64Var(&o.maxFile, "max-file-bytes", 0, "per-file upload cap reported on the bot user (0: the plan's, or 5 GiB without -plan)")
	fs.Func("plan", "workspace plan turning on the 2026 limits: free, plus, business or enterprise (empty: the older per-second limit of -rate)", func(v string) error {
		p, err := notion.ParsePlan(v)
		o.plan = p
		return err
	})
	fs.IntVar(&o.members, "members", 1, "workspace members, guests excluded (a Free workspace with more than one has the 1,000-block limit)")
	fs.Func("token-type", "connection kind of every token: internal (default), oauth_selected, oauth_public or personal (the last two are exempt from the block limit)", func(v string) error {
		t, err := notion.ParseTokenType(v)
		o.tokenType = t
		return err
	})
	fs.IntVar(&o.connBudget, "connection-budget", 0, "with -plan: requests per connection per 60 s (0: the plan's)")
	fs.IntVar(&o.wsBudget, "workspace-budget", 0, "with -plan: requests per workspace window, all connections together (0: the plan's)")
	fs.DurationVar(&o.wsWindow, "workspace-window", 0, "with -plan: the workspace window (0: 5m)")
	fs.IntVar(&o.blocks, "blocks-used", 0, "blocks the workspace created before the emulator started (count toward the block limit)")
	fs.DurationVar(&o.uploadExpiry, "upload-expiry", time.Hour, "lifetime of unattached file uploads")
	fs.StringVar(&o.rootTitle, "root-title", "Migrated notebooks", "title of the root page shared with the integration")
	fs.StringVar(&o.logLevel, "log", "info", "log level: debug, info, warn, error")
	fs.Float64Var(&o.faults.InternalError, "fault-500", 0, "probability of 500 internal_server_error")
	fs.Float64Var(&o.faults.BadGateway, "fault-502", 0, "probability of 502 with an HTML body")
	fs.Float64Var(&o.faults.Unavailable, "fault-503", 0, "probability of 503 service_unavailable")
	fs.Float64Var(&o.faults.GatewayTimeout, "fault-504", 0, "probability of 504 gateway_timeout")
	fs.Float64Var(&o.faults.Conflict, "fault-409", 0, "probability of 409 conflict_error")
	fs.Float64Var(&o.faults.Overload, "fault-529", 0, "probability of 529 service_overload")
	fs.Float64Var(&o.faults.Slow, "fault-slow", 0, "probability of a slow response")
	fs.DurationVar(&o.faults.SlowDelay, "slow-delay", 2*time.Second, "delay of a slow response")
	fs.Float64Var(&o.faults.AppliedThenInternalError, "fault-applied-500", 0, "probability that a write is applied but answered 500")
	fs.Float64Var(&o.faults.AppliedThenGatewayTimeout, "fault-applied-504", 0, "probability that a write is applied but answered 504")
	fs.Float64Var(&o.faults.PartialWrite, "fault-partial", 0, "probability that an append or page create is answered 200 but only partly kept")
	fs.StringVar(&o.faults.PartialWriteCut, "fault-partial-cut", "", "how -fault-partial cuts: children, text, or empty for both")
	fs.Func("fault-partial-pages", "comma-separated page IDs or titles -fault-partial is limited to (default: every page)", func(v string) error {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				o.faults.PartialWritePages = append(o.faults.PartialWritePages, p)
			}
		}
		return nil
	})
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	switch o.faults.PartialWriteCut {
	case "", notion.CutChildren, notion.CutText:
	default:
		return o, fmt.Errorf("-fault-partial-cut %q: want %s, %s or nothing", o.faults.PartialWriteCut, notion.CutChildren, notion.CutText)
	}
	return o, nil
}

// applyTokenCaps sets the capabilities that spec ("tok=read_content+
// insert_content,tok2=none") gives tokens; each must be among tokens.
func applyTokenCaps(srv *notion.Server, spec string, tokens []string) error {
	for _, item := range strings.Split(spec, ",") {
		if item = strings.TrimSpace(item); item == "" {
			continue
		}
		tok, caps, ok := strings.Cut(item, "=")
		if !ok || !slices.Contains(tokens, tok) {
			return fmt.Errorf("-token-caps: the entry for token %s is not token=capabilities naming a token given with -token", notion.TokenFingerprint(tok))
		}
		c, err := notion.ParseCapabilities(caps)
		if err != nil {
			return fmt.Errorf("-token-caps: token %s: %w", notion.TokenFingerprint(tok), err)
		}
		if err := srv.SetCapabilities(tok, c); err != nil {
			return err
		}
	}
	return nil
}

// run serves until ctx ends.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(o.logLevel)); err != nil {
		return fmt.Errorf("parse -log: %w", err)
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	var tokens []string
	for _, t := range strings.Split(o.tokens, ",") {
		if t = strings.TrimSpace(t); t != "" {
			tokens = append(tokens, t)
		}
	}
	srv := notion.NewServer(notion.Config{
		Seed: o.seed, Tokens: tokens, Rate: o.rate, Burst: o.burst, Faults: o.faults,
		WorkspaceRate: o.wsRate, WorkspaceBurst: o.wsBurst,
		MaxFileUploadBytes: o.maxFile, UploadExpiry: o.uploadExpiry, WorkspaceBlockLimit: o.blockLimit,
		RootPageTitle: o.rootTitle, Logger: logger,
		Plan: o.plan, Members: o.members, TokenType: o.tokenType,
		ConnectionBudget: o.connBudget, WorkspaceBudget: o.wsBudget, WorkspaceWindow: o.wsWindow, BlocksUsed: o.blocks,
	})
	if err := applyTokenCaps(srv, o.tokenCaps, tokens); err != nil {
		return err
	}
	issued := ""
	if len(tokens) == 0 {
		issued = srv.IssueToken()
		tokens = append(tokens, issued)
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	base := "http://" + ln.Addr().String()
	fmt.Fprintf(stdout, "Notion emulator listening on %s\n", base)
	if issued != "" {
		// The only way to learn an issued token; tokens given with -token
		// are never echoed, only their fingerprints.
		fmt.Fprintf(stdout, "token: %s\n", issued)
	}
	for _, t := range tokens {
		fmt.Fprintf(stdout, "token %s: %s\n", notion.TokenFingerprint(t), strings.Join(srv.CapabilitiesOf(t).Names(), ","))
	}
	if o.plan != "" {
		fmt.Fprintf(stdout, "plan: %s, %d member(s), token type %s\n", o.plan, max(o.members, 1), cmp.Or(o.tokenType, notion.TokenInternal))
	}
	fmt.Fprintf(stdout, "root page: %s\nview: %s/_emulator/view\nexport: %s/_emulator/export\n", srv.RootPageID(), base, base)

	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}
