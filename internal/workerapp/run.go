// Package workerapp is Note Bridge's Temporal worker: configuration from
// flags and the environment, and the process that runs the migration
// workflows, their activities and the Graph limiter entity. The worker
// command (./worker) is its Main; the benchmarks' worker (bench/cmd/worker)
// is the same Main with an Extension.
//
// Graph tokens come from the encrypted token store that `starter login`
// fills (auth.Store): the worker refreshes them before they expire and
// never puts them in workflow history. Against the Graph emulator:
//
//	NOTION_TOKEN=secret_… go run ./worker -app-id demo -authority http://127.0.0.1:8081 \
//	    -graph-url http://127.0.0.1:8081/v1.0 -notion-url http://127.0.0.1:8082 -limits onenote-x60
package workerapp

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/auth"
	"github.com/notebridge/notebridge/codec"
	"github.com/notebridge/notebridge/limiter/entity"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/onenote"
	"github.com/notebridge/notebridge/workflows"
)

// Extension adds to the worker what a build of it other than the
// product's needs (the benchmarks' baselines): flags of its own, and a
// change to the workflows before they are registered. The zero Extension
// is the product worker.
type Extension struct {
	// Flags defines the extension's flags on the worker's flag set.
	Flags func(fs *flag.FlagSet)
	// Workflows changes the workflows once the flags are parsed; its
	// error stops the worker before it connects.
	Workflows func(w *workflows.Workflows) error
}

// Main runs the worker with args (without the program name) until SIGINT
// or SIGTERM, and returns the process's exit code: 0, 1 when the worker
// failed, 2 for bad flags.
func Main(args []string, ext Extension) int {
	cfg, err := parseConfigWith(args, ext.Flags)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return 2
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(cfg.LogLevel)); err != nil {
		fmt.Fprintln(os.Stderr, "worker: -log-level:", err)
		return 2
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := runWith(ctx, cfg, log, ext.Workflows); err != nil {
		log.Error("worker stopped", "error", err)
		return 1
	}
	log.Info("worker stopped")
	return 0
}

// run connects to Temporal and runs the product worker until ctx ends.
func run(ctx context.Context, cfg config, log *slog.Logger) error { return runWith(ctx, cfg, log, nil) }

// runWith is run with configure (if not nil) applied to the workflows
// before they are registered.
func runWith(ctx context.Context, cfg config, log *slog.Logger, configure func(*workflows.Workflows) error) error {
	wf := workflows.New(cfg.AppID)
	wf.Limits = cfg.Limits
	wf.LimiterShards = cfg.LimiterShards
	if configure != nil {
		if err := configure(wf); err != nil {
			return err
		}
	}
	store, err := openStore(cfg, log)
	if err != nil {
		return err
	}
	opts := client.Options{HostPort: cfg.TemporalAddress, Namespace: cfg.Namespace, Logger: tlog.NewStructuredLogger(log)}
	keyID, err := codec.ConfigureClient(&opts, os.Getenv, cfg.CodecKeyFile,
		codec.Options{RequireEncrypted: !cfg.CodecAllowPlaintext, CodecEndpoint: cfg.CodecEndpoint})
	if err != nil {
		return fmt.Errorf("payload encryption: %w", err)
	}
	switch {
	case keyID == "":
		log.Warn("payloads are stored unencrypted: set NOTEBRIDGE_CODEC_KEY or -codec-key-file to encrypt them")
	case cfg.CodecAllowPlaintext:
		log.Warn("payloads encrypted, but unencrypted ones are accepted (-codec-allow-plaintext): a workflow started without the codec keeps its input in plaintext",
			"key", keyID)
	default:
		log.Info("payloads encrypted; unencrypted workflow input is refused", "key", keyID, "codecEndpoint", cfg.CodecEndpoint)
	}
	c, err := client.DialContext(ctx, opts)
	if err != nil {
		return fmt.Errorf("connect to Temporal at %s: %w", cfg.TemporalAddress, err)
	}
	defer c.Close()
	if err := applyLimits(ctx, c, cfg, log); err != nil {
		return err
	}

	notionTok := notion.StaticToken(cfg.NotionToken)
	pacing, err := notionPacing(c, cfg, log)
	if err != nil {
		return err
	}
	nc, err := notion.NewClient(notion.Config{BaseURL: cfg.NotionURL, Token: notionTok, Logger: log, Pacing: pacing})
	if err != nil {
		return err
	}
	acts, err := activities.New(activities.Config{
		GraphBaseURL: cfg.GraphURL, GraphHTTP: onenote.NewHTTPClient(cfg.GraphTimeout),
		Tokens: storeTokens{store: store, timeout: auth.DefaultRefreshTimeout}, Notion: nc,
		StagingDir: cfg.StagingDir, Signals: c, ImportDir: cfg.ImportDir, NotionFacts: cfg.NotionFacts,
	})
	if err != nil {
		return err
	}
	defer acts.Close()
	// What killed workers staged is cleared at start and then
	// periodically: their sessions are gone with them.
	go acts.SweepStagingEvery(ctx, stagingSweepEvery, log)
	// More pollers than the SDK's default of 2: the limiter entity and
	// every requester exchange short workflow tasks, and with 2 pollers
	// dispatch latency, not the budget, bounded permits per second
	// (bench/cmd/limiterbench: 29 against 47 requests/s).
	w := worker.New(c, cfg.TaskQueue, worker.Options{
		EnableSessionWorker:              true,
		MaxConcurrentWorkflowTaskPollers: 8,
		MaxConcurrentActivityTaskPollers: 8,
	})
	wf.Register(w)
	acts.Register(w)
	entity.Register(w, c)

	log.Info("worker starting", "temporal", cfg.TemporalAddress, "namespace", cfg.Namespace, "taskQueue", cfg.TaskQueue,
		"graph", cfg.GraphURL, "notion", cfg.NotionURL, "limits", cfg.Limits, "app", cfg.AppID, "staging", cfg.StagingDir,
		"tokens", cfg.TokenDir, "tenant", cfg.Tenant, "authority", cfg.Authority,
		"notionPacing", cfg.NotionPacing, "notionWindows", cfg.NotionSpec.String(),
		"notionPace", entity.WorkflowID(entity.ResourceNotion, notion.Fingerprint(cfg.NotionToken)))
	if err := w.Start(); err != nil {
		return fmt.Errorf("start worker: %w", err)
	}
	<-ctx.Done()
	log.Info("shutting down: finishing running activities")
	w.Stop()
	return nil
}

// stagingSweepEvery is how often a worker clears the staged pages of
// worker processes that are gone (activities.SweepStaging).
const stagingSweepEvery = 5 * time.Minute

// notionPacing is how the Notion client paces each token: through the
// pace entity, so every worker process together keeps the token's rate
// (the default), or per process (-notion-pacing process: the in-process
// pacer keeps every window over every interval, notion.PacerConfigWithin).
func notionPacing(c client.Client, cfg config, log *slog.Logger) (notion.Pacing, error) {
	spec := cfg.NotionSpec
	if len(spec.Windows) == 0 {
		var err error
		if spec, err = notionSpec(cfg); err != nil {
			return nil, err
		}
	}
	if cfg.NotionPacing == pacingProcess {
		// Every window is kept, over every interval (so Notion's 2026
		// windows that reset are kept too): the longest ones, such as a
		// plan's budget per minute, bound the rate as well as the first.
		budgets := make([]notion.Budget, len(spec.Windows))
		for i, w := range spec.Windows {
			budgets[i] = notion.Budget{Limit: w.Limit, Per: w.Per.D()}
		}
		return notion.NewPacers(notion.PacerConfigWithin(1, budgets...), nil), nil
	}
	return entity.NewPacing(c, entity.PacingOptions{TaskQueue: cfg.TaskQueue, Spec: spec, Logger: log})
}
