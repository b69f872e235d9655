package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"time"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"

	"github.com/notebridge/notebridge/auth"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/report"
	"github.com/notebridge/notebridge/workflows"
)

const reportDescription = `Writes the loss report of a migration that ended, as JSON (docs/report.schema.json): every
migrated page that lost something or holds it in another form, each entry with its kind,
severity, what and where, and the counts by kind, the link pass's losses included. It reads the
rows' loss records in Notion, as the "Migration report" page under the notebook's page does, so
it needs the integration token the worker uses (NOTION_TOKEN, or NOTION_TOKEN_FILE naming a
file only you can read). --out FILE writes it to FILE (default: standard output).`

func newReportCmd(c *cli, name, summary string) *cobra.Command {
	var tf *temporalFlags
	var target *targetFlags
	var out, notionURL string
	cmd := c.newCommand(name, "(-w ID | --user U [--notebook N]) [--out FILE]", summary, reportDescription, func() string {
		return fmt.Sprintf("temporal workflow result %s --workflow-id %s  # the counts; the entries are on the rows in Notion",
			tf.cliFlags(), shellQuote(target.placeholder()))
	}, func(ctx context.Context, _ *cobra.Command) error { return c.report(ctx, tf, target, notionURL, out) })
	fs := cmd.Flags()
	tf = c.temporalFlags(fs, false)
	target = c.targetFlags(fs)
	fs.StringVarP(&out, "out", "o", "", "write the JSON report to this `file` (default: standard output)")
	fs.StringVar(&notionURL, "notion-url", c.env("NOTEBRIDGE_NOTION_URL", notion.DefaultBaseURL), "Notion API base URL (env NOTEBRIDGE_NOTION_URL)")
	return cmd
}

// reportJSON is what report --json prints once the report is written to
// a file.
type reportJSON struct {
	Type         string `json:"type"` // "report"
	WorkflowID   string `json:"workflowId"`
	File         string `json:"file"`
	Pages        int    `json:"pages"`
	Lost         int    `json:"lost"`
	Approximated int    `json:"approximated"`
}

// reportTimeout bounds the reading of the loss records: a Notion that
// does not answer is named, not waited for.
const reportTimeout = 2 * time.Minute

// report reads the loss report of the target migration from Notion and
// writes it as JSON.
func (c *cli) report(ctx context.Context, tf *temporalFlags, target *targetFlags, notionURL, out string) error {
	tok, err := auth.NotionToken(c.getenv)
	if errors.Is(err, auth.ErrNoNotionToken) {
		return usagef("no Notion token: set NOTION_TOKEN (or NOTION_TOKEN_FILE) to the integration token the worker uses")
	}
	if err != nil {
		return err
	}
	tc, ref, err := target.dial(ctx, tf)
	if err != nil {
		return err
	}
	defer tc.Close()
	id := ref.id
	nb, err := endedReport(ctx, tc, tf, ref)
	if err != nil {
		return err
	}
	nc, err := notion.NewClient(notion.Config{BaseURL: notionURL, Token: notion.StaticToken(tok.Reveal()),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return err
	}
	host := notionURL
	if u, err := url.Parse(notionURL); err == nil && u.Host != "" {
		host = u.Host
	}
	if !c.json {
		fmt.Fprintf(c.stderr, "Reading the loss records of %q from Notion at %s...\n", nb.NotebookName, host)
	}
	cctx, cancel := context.WithTimeout(ctx, reportTimeout)
	defer cancel()
	rep, err := collect(cctx, nc, nb)
	if err != nil {
		if cctx.Err() != nil && ctx.Err() == nil {
			err = fmt.Errorf("no answer from Notion at %s within %s", host, reportTimeout)
		} else {
			err = fmt.Errorf("reading Notion at %s: %w", host, err)
		}
		return fmt.Errorf("%w\nThe report reads Notion where the worker writes: --notion-url (NOTEBRIDGE_NOTION_URL) and "+
			"NOTION_TOKEN (or NOTION_TOKEN_FILE), the worker's settings", err)
	}
	raw, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	raw = append(raw, '\n')
	if out == "" || out == "-" {
		_, err := c.stdout.Write(raw)
		return err
	}
	if err := os.WriteFile(out, raw, 0o644); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	if c.json {
		return c.printJSON(reportJSON{Type: "report", WorkflowID: id, File: out, Pages: rep.Pages, Lost: rep.Lost, Approximated: rep.Approximated})
	}
	fmt.Fprintf(c.stdout, "Wrote the loss report of notebook %q to %s: %d pages, %d items lost, %d approximated", nb.NotebookName, out,
		rep.Pages, rep.Lost, rep.Approximated)
	if s := report.Summary(rep.Kinds); s != "" {
		fmt.Fprintf(c.stdout, " (%s)", s)
	}
	fmt.Fprintln(c.stdout, ".")
	return nil
}

// endedReport is the report of the migration run ref, which must have
// ended with one (a migration that stopped carries it in its error's
// details).
func endedReport(ctx context.Context, tc client.Client, tf *temporalFlags, ref runRef) (workflows.NotebookReport, error) {
	var rep workflows.NotebookReport
	id := ref.id
	d, err := tc.DescribeWorkflow(ctx, id, ref.runID)
	if err != nil {
		return rep, notFound(err, id, "")
	}
	if d.RawResponse.GetWorkflowExecutionInfo().GetCloseTime() == nil {
		return rep, fmt.Errorf("migration %s is still running: its loss report is complete once it ends "+
			"(follow it with \"%s\")", id, tf.starter("status", "-w", id, "--follow"))
	}
	if err := tc.GetWorkflow(ctx, id, d.RawResponse.GetWorkflowExecutionInfo().GetExecution().GetRunId()).Get(ctx, &rep); err != nil {
		return rep, fmt.Errorf("migration %s ended without a report: %w", id, err)
	}
	if rep.DryRun || rep.NotebookPageID == "" {
		return rep, fmt.Errorf("migration %s wrote nothing to Notion (a dry run, or it ended before it created the notebook's page): no loss report", id)
	}
	return rep, nil
}

// collect reads the loss records of the report's sections.
func collect(ctx context.Context, nc *notion.Client, nb workflows.NotebookReport) (report.Report, error) {
	var secs []notion.ReportSection
	for _, s := range nb.Sections {
		if s.DatabaseID != "" {
			secs = append(secs, notion.ReportSection{Name: s.Path, DatabaseID: s.DatabaseID})
		}
	}
	rep, err := nc.CollectReport(ctx, nb.NotebookName, nb.NotebookPageID, secs)
	if err != nil {
		return rep, fmt.Errorf("reading the loss records in Notion: %w", err)
	}
	rep.ReportPageID = nb.ReportPageID
	return rep, nil
}
