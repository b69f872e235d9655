// Command starter is Note Bridge's operator CLI: it signs users in to
// Microsoft, scans their notebooks, starts and follows migrations, and
// drives a migration that waits with failed sections.
//
//	starter login   --user alice                      # device-code sign-in into the encrypted token store
//	starter scan    --user alice                      # notebooks, sections, page counts, estimate
//	starter migrate --user alice --notebook "Work notes" --notion-parent <page id>
//	starter status  --user alice --follow             # live progress, ETA, throttle waits, budget use
//	starter retry   --user alice --section "Ideas"    # or --all
//	starter finish  --user alice                      # end a waiting migration, print the report
//	starter list    --user alice                      # migrations by search attribute
//	starter report  --user alice --out report.json    # an ended migration's loss report (docs/report.schema.json)
//	starter verify  --user alice                      # read every migrated page back from Notion and compare
//
// Every command is also a temporal CLI command; each --help shows it. The
// Temporal address, namespace and task queue flags and variables are the
// worker's: --temporal-address (TEMPORAL_ADDRESS), --namespace
// (TEMPORAL_NAMESPACE), --task-queue (NOTEBRIDGE_TASK_QUEUE). Single-dash long
// flags (-user) are taken as well, as before; --json prints any result as
// JSON, and --version the version.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
