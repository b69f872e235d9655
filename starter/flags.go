package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/spf13/pflag"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/codec"
	"github.com/notebridge/notebridge/internal/shell"
)

// temporalFlags say where Temporal is; the names and variables are the
// worker's.
type temporalFlags struct {
	address, namespace, taskQueue string
	// codecKeyFile and getenv find the payload keys, as the worker does.
	codecKeyFile string
	getenv       func(string) string
}

// temporalFlags registers the connection flags; withQueue adds
// --task-queue, for the commands that start workflows.
func (c *cli) temporalFlags(fs *pflag.FlagSet, withQueue bool) *temporalFlags {
	t := &temporalFlags{getenv: c.getenv}
	fs.StringVar(&t.codecKeyFile, "codec-key-file", c.env("NOTEBRIDGE_CODEC_KEY_FILE", ""),
		"the workers' payload encryption key file (env NOTEBRIDGE_CODEC_KEY_FILE; NOTEBRIDGE_CODEC_KEY wins)")
	fs.StringVar(&t.address, "temporal-address", c.env("TEMPORAL_ADDRESS", defaultAddress), "Temporal frontend host:port (env TEMPORAL_ADDRESS)")
	fs.StringVar(&t.namespace, "namespace", c.env("TEMPORAL_NAMESPACE", defaultNamespace), "Temporal namespace (env TEMPORAL_NAMESPACE)")
	if withQueue {
		fs.StringVar(&t.taskQueue, "task-queue", c.env("NOTEBRIDGE_TASK_QUEUE", "notebridge"), "the workers' task queue (env NOTEBRIDGE_TASK_QUEUE)")
	}
	return t
}

// defaultAddress and defaultNamespace are where starter and the
// temporal CLI connect when told nothing.
const (
	defaultAddress   = "127.0.0.1:7233"
	defaultNamespace = "default"
)

// starter is a starter command of args for the same server: quoted for a
// shell, with --temporal-address and --namespace when they are not the
// defaults (the demo's server listens on a port of its own), so a person
// can paste it.
func (t *temporalFlags) starter(args ...string) string {
	cmd := "starter " + shell.Join(args...)
	if t == nil {
		return cmd
	}
	if t.address != defaultAddress {
		cmd += " --temporal-address " + shell.Quote(t.address)
	}
	if t.namespace != defaultNamespace {
		cmd += " --namespace " + shell.Quote(t.namespace)
	}
	return cmd
}

// cliFlags are the temporal CLI's flags for the same server. With a
// payload key configured they add the codec server's --codec-endpoint
// (NOTEBRIDGE_CODEC_ENDPOINT, as the worker reads it): the workers refuse
// input the CLI did not encrypt.
func (t *temporalFlags) cliFlags() string {
	f := "--address " + shellQuote(t.address) + " --namespace " + shellQuote(t.namespace)
	if t.codecKeyFile != "" || strings.TrimSpace(t.getenv(codec.EnvKey)) != "" {
		endpoint := t.getenv("NOTEBRIDGE_CODEC_ENDPOINT")
		if endpoint == "" {
			endpoint = codec.DefaultCodecEndpoint
		}
		f += " --codec-endpoint " + shellQuote(endpoint)
	}
	return f
}

// dial connects to Temporal, or says how to get it running.
func (t *temporalFlags) dial(ctx context.Context) (client.Client, error) {
	dctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	opts := client.Options{HostPort: t.address, Namespace: t.namespace,
		Logger: tlog.NewStructuredLogger(slog.New(slog.DiscardHandler))}
	if _, err := codec.ConfigureClient(&opts, t.getenv, t.codecKeyFile, codec.Options{}); err != nil {
		return nil, fmt.Errorf("payload encryption: %w", err)
	}
	tc, err := client.DialContext(dctx, opts)
	if err != nil {
		top := t.topology()
		return nil, fmt.Errorf("cannot reach Temporal at %s (namespace %q): %w\n"+
			"down: the Temporal server (%s); start it: %s\nor point --temporal-address (TEMPORAL_ADDRESS) at the server", t.address, t.namespace, err,
			top.name, top.restart)
	}
	return tc, nil
}

// warnNoWorker tells the person when no worker polls the task queue: a
// workflow started now would wait until one does.
func (c *cli) warnNoWorker(ctx context.Context, tc client.Client, t *temporalFlags) {
	resp, err := tc.DescribeTaskQueue(ctx, t.taskQueue, enumspb.TASK_QUEUE_TYPE_WORKFLOW)
	if err != nil || len(resp.GetPollers()) > 0 {
		return
	}
	fmt.Fprintf(c.stderr, "warning: no worker polls task queue %q on %s; the workflow waits until one does (start the worker: go run ./worker, or docker compose up worker)\n",
		t.taskQueue, t.address)
}

// notFound turns Temporal's NotFound into an error that says how to find
// the right workflow.
func notFound(err error, id, user string) error {
	var nf *serviceerror.NotFound
	if !errors.As(err, &nf) {
		return err
	}
	hint := "\"starter list\""
	if user != "" {
		hint = fmt.Sprintf("\"starter list --user %s\"", user)
	}
	return fmt.Errorf("no workflow %q in this namespace: list migrations with %s", id, hint)
}

// shellQuote quotes s for a shell (shell.Quote, the one rule).
func shellQuote(s string) string { return shell.Quote(s) }

// contentFlags declares the content options (what a migration or a sync
// carries over) on fs, for migrate and sync create alike.
func contentFlags(fs *pflag.FlagSet, o *activities.ContentOptions) {
	fs.BoolVar(&o.SkipImages, "skip-images", false, "leave every image out, never fetched, reported as skipped (\"skipImages\")")
	fs.BoolVar(&o.SkipAttachments, "skip-attachments", false, "leave every attachment (file, PDF) out, never fetched, reported as skipped (\"skipAttachments\")")
	fs.BoolVar(&o.SkipInk, "skip-ink", false, "leave ink (handwriting, drawings) out, reported as skipped; by default each drawing is an SVG image where it was drawn (\"skipInk\")")
	fs.BoolVar(&o.SkipVerify, "skip-verify", false, "do not read each written page back from Notion to check it holds what was written (\"skipVerify\"); verification costs about one read per page and one per block with children")
	fs.StringVar(&o.ImageAlt, "image-alt", "", "what an image's alt text becomes: drop (default; OneNote puts OCR text there) or caption (\"imageAlt\")")
}
