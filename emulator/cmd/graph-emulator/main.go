// Command graph-emulator runs the Microsoft Graph OneNote emulator as a
// standalone HTTP server on loopback. It generates deterministic notebooks
// for each user, optionally adds hand-written fixture pages, and prints a
// bearer token per user.
//
//	go run ./emulator/cmd/graph-emulator -users alice,bob -pages 50 -time-scale 60
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/notebridge/notebridge/emulator/graph"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "graph-emulator:", err)
		os.Exit(1)
	}
}

// options are the parsed command-line flags.
type options struct {
	addr, users, fixtures, scopeHeader, appID, libraryUsers, logLevel string
	tls                                                               bool
	tlsCertOut                                                        string
	appScope                                                          bool
	seed                                                              uint64
	spec                                                              graph.GenSpec
	timeScale, hidden                                                 float64
	percentage, throttledNotCounted                                   bool
	userMin, userHour, userConc, appMin, appHour, appConc             int
	tokenTTL, refreshTokenTTL                                         time.Duration
	strictRefreshRotation                                             bool
	quirks                                                            graph.Config // the measured-quirk switches only
	batchConcurrency                                                  int
	faults                                                            graph.Faults
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("graph-emulator", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.addr, "addr", "127.0.0.1:8081", "listen address (host:port)")
	fs.StringVar(&o.users, "users", "alice", "comma-separated user names to create data and tokens for")
	fs.Uint64Var(&o.seed, "seed", 1, "seed for data, faults and batch order")
	fs.IntVar(&o.spec.Notebooks, "notebooks", 1, "notebooks per user")
	fs.IntVar(&o.spec.GroupDepth, "group-depth", 1, "nesting depth of section groups (0: none)")
	fs.IntVar(&o.spec.GroupsPerLevel, "groups-per-level", 1, "section groups in each container")
	fs.IntVar(&o.spec.SectionsPerContainer, "sections", 2, "sections in each notebook and section group")
	fs.IntVar(&o.spec.PagesPerSection, "pages", 25, "pages in each section")
	fs.IntVar(&o.spec.SubpageLevels, "subpage-levels", 2, "deepest page level, 0..2")
	fs.IntVar(&o.spec.ImagesPerPage, "images", 1, "images per page")
	fs.IntVar(&o.spec.AttachmentsPerPage, "attachments", 1, "attachments per page")
	fs.IntVar(&o.spec.PrintoutEvery, "printout-every", 5, "put a PDF printout on every n-th page (0: none)")
	fs.IntVar(&o.spec.InkEvery, "ink-every", 4, "put ink on every n-th page (0: none)")
	fs.IntVar(&o.spec.UntitledEvery, "untitled-every", 0, "leave every n-th page untitled (title \"\" in listings; 0: none)")
	fs.IntVar(&o.spec.LinksPerPage, "links", 1, "onenote: links to other pages per page")
	fs.IntVar(&o.spec.ImageBytes, "image-bytes", 2048, "size of each image resource")
	fs.IntVar(&o.spec.AttachmentBytes, "attachment-bytes", 8192, "size of each attachment resource")
	fs.StringVar(&o.fixtures, "fixtures", "", "directory of OneNote output .html files added as a \"Fixtures\" notebook for every user")
	fs.Float64Var(&o.timeScale, "time-scale", 1, "shorten limit windows: 60 makes a minute last 1s and an hour 60s")
	fs.Float64Var(&o.hidden, "hidden-limits", 0, "enforce this fraction of the advertised limits, e.g. 0.7 (0: off)")
	fs.StringVar(&o.scopeHeader, "scope-header", "none", "x-ms-throttle-scope on 429s: none, simple or full")
	fs.BoolVar(&o.percentage, "percentage-header", false, "send x-ms-throttle-limit-percentage at >= 0.8 usage")
	fs.BoolVar(&o.throttledNotCounted, "throttled-not-counted", false, "keep throttled requests out of the rate windows")
	fs.IntVar(&o.userMin, "user-per-minute", 120, "per-user requests per minute")
	fs.IntVar(&o.userHour, "user-per-hour", 400, "per-user requests per hour")
	fs.IntVar(&o.userConc, "user-concurrency", 5, "per-user concurrent requests")
	fs.IntVar(&o.appMin, "app-per-minute", 240, "per-app requests per minute")
	fs.IntVar(&o.appHour, "app-per-hour", 800, "per-app requests per hour")
	fs.IntVar(&o.appConc, "app-concurrency", 20, "per-app concurrent requests")
	fs.StringVar(&o.appID, "app-id", "", "application id (default: a fixed GUID)")
	fs.DurationVar(&o.tokenTTL, "token-ttl", time.Hour, "lifetime of access tokens (printed ones and issued ones)")
	fs.DurationVar(&o.refreshTokenTTL, "refresh-token-ttl", 90*24*time.Hour, "lifetime of each refresh token")
	fs.BoolVar(&o.strictRefreshRotation, "strict-refresh-rotation", false, "revoke a refresh token when it is redeemed (Microsoft keeps it valid until it expires)")
	fs.IntVar(&o.batchConcurrency, "batch-concurrency", 4, "$batch sub-requests run at once")
	fs.BoolVar(&o.quirks.InkMultipartRelated, "ink-multipart-related", false, "answer includeInkML=true as multipart/related (documented) instead of multipart/mixed (measured)")
	fs.BoolVar(&o.quirks.LenientToLower, "lenient-tolower", false, "accept tolower(field) eq on the account-wide /sections (a real account answers 500 19999)")
	fs.DurationVar(&o.quirks.FreshTitleLag, "fresh-title-lag", 30*time.Second, "how long GET /pages/{id} reads a new page's title as \"\" (scaled; negative: off)")
	fs.BoolVar(&o.quirks.RefreshExpiredCode70008, "refresh-expired-70008", false, "refuse a lapsed refresh token with AADSTS70008 instead of AADSTS700082")
	fs.Float64Var(&o.faults.ServerErrorRate, "fault-5xx", 0, "probability of a 5xx burst")
	fs.IntVar(&o.faults.ServerErrorBurst, "fault-5xx-burst", 3, "requests per 5xx burst")
	fs.Float64Var(&o.faults.SlowRate, "fault-slow", 0, "probability of a slow response")
	fs.DurationVar(&o.faults.SlowDelay, "fault-slow-delay", 2*time.Second, "delay of a slow response")
	fs.Float64Var(&o.faults.TruncateRate, "fault-truncate", 0, "probability of a truncated body")
	fs.Float64Var(&o.faults.BatchInnerRate, "fault-batch-inner", 0, "probability of an inner 429/502/503 in a $batch")
	fs.Float64Var(&o.faults.BadRequestRate, "fault-bad-request", 0, "probability of a transient bare 400 on page GETs")
	fs.Float64Var(&o.faults.TokenExpiryRate, "fault-token-expiry", 0, "probability that a request's token expires")
	fs.StringVar(&o.libraryUsers, "library-limit-users", "", "comma-separated users who get 403 10008 (5,000-item library limit)")
	fs.StringVar(&o.logLevel, "log-level", "info", "debug logs every request")
	fs.BoolVar(&o.tls, "tls", false, "serve HTTPS with a fresh self-signed ECDSA certificate for 127.0.0.1, ::1 and localhost")
	fs.StringVar(&o.tlsCertOut, "tls-cert-out", "", "with -tls, write the certificate (PEM, no key) to this file, e.g. for NODE_EXTRA_CA_CERTS")
	fs.BoolVar(&o.appScope, "app-scope", true, "enforce the per-app limits (-app-per-minute, -app-per-hour, -app-concurrency) summed over users")
	fs.IntVar(&o.spec.LockedSections, "locked-sections", 0, "password-protect the last n sections of each user (403 20185)")
	fs.Float64Var(&o.faults.ExpandOutageRate, "fault-expand-outage", 0, "probability that a notebooks $expand starts an expand outage (500 19999)")
	fs.DurationVar(&o.faults.ExpandOutage, "fault-expand-outage-for", 7*time.Minute, "length of an expand outage (scaled by -time-scale)")
	fs.IntVar(&o.faults.BurstConcurrency, "fault-burst", 0, "refuse with 429 10007 once more than n requests are in flight at once (0: off; M1 saw about 108)")
	fs.DurationVar(&o.faults.BurstCooldown, "fault-burst-cooldown", 3*time.Minute, "how long a burst keeps every request refused (scaled by -time-scale)")
	fs.StringVar(&o.faults.MessageLocale, "message-locale", "", "error-message language: \"\" (English) or nl (Dutch)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.libraryUsers != "" {
		o.faults.LibraryLimitUsers = strings.Split(o.libraryUsers, ",")
	}
	if o.tlsCertOut != "" && !o.tls {
		return o, errors.New("-tls-cert-out needs -tls")
	}
	if l := o.faults.MessageLocale; l != "" && l != "en" && l != "nl" {
		return o, fmt.Errorf("-message-locale %q: want \"\", en or nl", l)
	}
	return o, nil
}

func (o options) config(logger *slog.Logger) (graph.Config, error) {
	modes := map[string]graph.ScopeHeaderMode{"none": graph.ScopeHeaderNone, "simple": graph.ScopeHeaderSimple, "full": graph.ScopeHeaderFull}
	mode, ok := modes[o.scopeHeader]
	if !ok {
		return graph.Config{}, fmt.Errorf("-scope-header %q: want none, simple or full", o.scopeHeader)
	}
	app := graph.ScopeLimits{Windows: []graph.Window{{N: o.appMin, Duration: time.Minute}, {N: o.appHour, Duration: time.Hour}}, Concurrency: o.appConc}
	if !o.appScope {
		app = graph.ScopeLimits{}
	}
	return graph.Config{
		Limits: graph.Limits{
			User: graph.ScopeLimits{Windows: []graph.Window{{N: o.userMin, Duration: time.Minute}, {N: o.userHour, Duration: time.Hour}}, Concurrency: o.userConc},
			App:  app,
		},
		TimeScale:           o.timeScale,
		HiddenLimitFactor:   o.hidden,
		ScopeHeader:         mode,
		PercentageHeader:    o.percentage,
		ThrottledNotCounted: o.throttledNotCounted,
		AppID:               o.appID,
		Seed:                o.seed,
		TokenTTL:            o.tokenTTL,
		BatchConcurrency:    o.batchConcurrency,
		Logger:              logger,
		// The measured quirks (graph-reality.md facts 25, 32, 33, 35).
		InkMultipartRelated:     o.quirks.InkMultipartRelated,
		LenientToLower:          o.quirks.LenientToLower,
		FreshTitleLag:           o.quirks.FreshTitleLag,
		RefreshExpiredCode70008: o.quirks.RefreshExpiredCode70008,
	}, nil
}

// run serves until ctx ends.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	level := slog.LevelInfo
	if o.logLevel == "debug" {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	cfg, err := o.config(logger)
	if err != nil {
		return err
	}
	cfg.RefreshTokenTTL, cfg.StrictRefreshRotation = o.refreshTokenTTL, o.strictRefreshRotation
	srv := graph.NewServer(cfg)
	users := strings.Split(o.users, ",")
	for _, u := range users {
		spec := o.spec
		spec.Seed, spec.Owner = o.seed, u
		srv.AddNotebooks(u, graph.Generate(spec)...)
		if o.fixtures != "" {
			// Each user gets its own copy, so deleting or touching a page
			// of one user leaves the others alone.
			sec, err := graph.LoadFixtures(o.fixtures, "Fixtures")
			if err != nil {
				return err
			}
			srv.AddNotebooks(u, &graph.Notebook{DisplayName: "Fixtures", Sections: []*graph.Section{sec}})
		}
	}
	srv.SetFaults(o.faults)

	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	base := "http://" + ln.Addr().String()
	if o.tls {
		cert, err := graph.NewTLSCert()
		if err != nil {
			return err
		}
		if o.tlsCertOut != "" {
			if err := cert.WritePEM(o.tlsCertOut); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "Certificate written to %s (trust it with NODE_EXTRA_CA_CERTS=%s)\n", o.tlsCertOut, o.tlsCertOut)
		}
		ln = tls.NewListener(ln, cert.ServerConfig())
		base = "https://" + ln.Addr().String()
	}
	fmt.Fprintf(stdout, "Graph OneNote emulator on %s (app id %s)\n", base, srv.AppID())
	fmt.Fprintf(stdout, "  Graph root:  %s/v1.0/me/onenote/\n  Identity:    %s/common/oauth2/v2.0/{devicecode,token}\n  Device login: %s/devicelogin\n  Stats:       %s/_emulator/stats  %s/_emulator/violations\n", base, base, base, base, base)
	for _, u := range users {
		fmt.Fprintf(stdout, "  token %s: %s\n", u, srv.IssueToken(u, []string{"Notes.Read", "offline_access"}, o.tokenTTL))
	}

	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}
