package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/notebridge/notebridge/workflows"
)

// scanWorkflowID is the workflow ID of a user's scan, the one the demo
// uses: one scan per user at a time.
func scanWorkflowID(user string) string { return "scan/" + user }

const scanDescription = `Lists the user's notebooks, their sections and page counts, and estimates how long a
migration of each takes under the Graph limits. It runs the ScanNotebooks workflow (the
limiter's foreground lane: about one Graph request per 100 pages) and waits for it; a scan
already running for the user is joined, not repeated. -last prints the last scan's result
without asking Graph again.

It also shows what each content option of "starter migrate" would save (--skip-images,
--skip-attachments, --skip-ink), in Graph requests and time. The scan reads listings only, never
page content, so those figures come from the page counts and the images and attachments assumed
per page (--images-per-page, --attachments-per-page; by default --resources-per-page, 1, of which
0.8 images and 0.2 attachments).`

func newScanCmd(c *cli, name, summary string) *cobra.Command {
	var user, limits string
	var perPage, images, attachments float64
	var last bool
	var tf *temporalFlags
	cmd := c.newCommand(name, "--user U [flags]", summary, scanDescription, func() string {
		u := user
		if u == "" {
			u = "<user>"
		}
		in := jsonText(workflows.ScanInput{User: u, Limits: limits, ResourcesPerPage: perPage, ImagesPerPage: images, AttachmentsPerPage: attachments})
		return fmt.Sprintf("temporal workflow execute %s --task-queue %s --type %s --workflow-id %s --input %s",
			tf.cliFlags(), shellQuote(tf.taskQueue), workflows.ScanNotebooksName, shellQuote(scanWorkflowID(u)), shellQuote(in))
	}, func(ctx context.Context, _ *cobra.Command) error {
		return c.runScan(ctx, tf, workflows.ScanInput{User: user, Limits: limits, ResourcesPerPage: perPage,
			ImagesPerPage: images, AttachmentsPerPage: attachments}, last)
	})
	fs := cmd.Flags()
	tf = c.temporalFlags(fs, true)
	fs.StringVar(&user, "user", "", "whose notebooks (the token store's user ID, as in \"starter login --user\")")
	fs.StringVar(&limits, "limits", "", "limits profile the estimate assumes: onenote (default: the worker's) or onenote-x<factor>")
	fs.Float64Var(&perPage, "resources-per-page", 0, "images and attachments assumed per page for the estimate (default 1: 0.8 images, 0.2 attachments)")
	fs.Float64Var(&images, "images-per-page", 0, "images assumed per page (with --attachments-per-page, instead of --resources-per-page)")
	fs.Float64Var(&attachments, "attachments-per-page", 0, "attachments assumed per page (with --images-per-page, instead of --resources-per-page)")
	fs.BoolVar(&last, "last", false, "print the last scan's result instead of scanning again")
	return cmd
}

// runScan scans (or, with last, reads the last scan) and prints it.
func (c *cli) runScan(ctx context.Context, tf *temporalFlags, in workflows.ScanInput, last bool) error {
	user := in.User
	if user == "" {
		return usagef("--user is required")
	}
	tc, err := tf.dial(ctx)
	if err != nil {
		return err
	}
	defer tc.Close()
	var res *workflows.ScanResult
	if last {
		if res, err = lastScan(ctx, tc, user); err != nil {
			return err
		}
		if res == nil {
			return fmt.Errorf("no finished scan of user %q: run \"starter scan --user %s\"", user, user)
		}
	} else {
		if res, err = c.scan(ctx, tc, tf, in); err != nil {
			return err
		}
	}
	if c.json {
		return c.printJSON(scanJSONOf(res))
	}
	printScan(c, res)
	return nil
}

// scan runs (or joins) the user's ScanNotebooks and waits for its result.
func (c *cli) scan(ctx context.Context, tc client.Client, tf *temporalFlags, in workflows.ScanInput) (*workflows.ScanResult, error) {
	c.warnNoWorker(ctx, tc, tf)
	id := scanWorkflowID(in.User)
	fmt.Fprintf(c.stderr, "Scanning the notebooks of %s (workflow %s)...\n", in.User, id)
	run, err := tc.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: id, TaskQueue: tf.taskQueue, StaticSummary: "Scan the notebooks of " + in.User,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
	}, workflows.ScanNotebooksName, in)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", workflows.ScanNotebooksName, err)
	}
	var res workflows.ScanResult
	if err := run.Get(ctx, &res); err != nil {
		if ctx.Err() != nil {
			return nil, errInterrupted
		}
		return nil, explain(err, in.User, "scan of "+in.User)
	}
	return &res, nil
}

// lastScan returns the result of the user's last completed scan, or nil.
func lastScan(ctx context.Context, tc client.Client, user string) (*workflows.ScanResult, error) {
	id := scanWorkflowID(user)
	desc, err := tc.DescribeWorkflow(ctx, id, "")
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("describe %s: %w", id, err)
	}
	info := desc.RawResponse.GetWorkflowExecutionInfo()
	if info.GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED {
		return nil, nil
	}
	var res workflows.ScanResult
	if err := tc.GetWorkflow(ctx, id, info.GetExecution().GetRunId()).Get(ctx, &res); err != nil {
		return nil, fmt.Errorf("result of %s: %w", id, err)
	}
	return &res, nil
}

// findNotebook finds a notebook of a scan by ID or display name, as the
// migration does.
func findNotebook(res *workflows.ScanResult, notebook string) *workflows.NotebookScan {
	for i, nb := range res.Notebooks {
		if nb.ID == notebook || strings.EqualFold(strings.TrimSpace(nb.Name), strings.TrimSpace(notebook)) {
			return &res.Notebooks[i]
		}
	}
	return nil
}

func printScan(c *cli, res *workflows.ScanResult) {
	w := c.stdout
	fmt.Fprintf(w, "Notebooks of %s (%d Graph requests, estimates under limits %q):\n", res.User, res.Requests, res.Limits)
	if len(res.Notebooks) == 0 {
		fmt.Fprintln(w, "  none")
		return
	}
	for _, nb := range res.Notebooks {
		fmt.Fprintf(w, "\nNotebook %q  (ID %s)\n", nb.Name, nb.ID)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintf(tw, "  SECTION\tPAGES\tSUBPAGES\t\n")
		for _, s := range nb.Sections {
			fmt.Fprintf(tw, "  %s\t%d\t%d\t\n", s.Path, s.Pages, s.Subpages)
		}
		tw.Flush()
		fmt.Fprintf(w, "  total: %d sections, %d pages\n", len(nb.Sections), nb.Pages)
		fmt.Fprintf(w, "  estimate: %s\n", estimateText(nb))
		printSavings(c, res, nb)
		if nb.Readiness != "" {
			fmt.Fprintf(w, "  %s\n", strings.ReplaceAll(nb.Readiness, "\n", "\n    "))
		}
	}
	nb := res.Notebooks[0]
	fmt.Fprintf(w, "\nMigrate one with:\n  starter migrate --user %s --notebook %s --notion-parent <Notion page ID shared with the integration>\n",
		shellQuote(res.User), shellQuote(nb.Name))
}

// printSavings says what each content option of migrate would save.
func printSavings(c *cli, res *workflows.ScanResult, nb workflows.NotebookScan) {
	if len(nb.Savings) == 0 {
		return
	}
	w := c.stdout
	fmt.Fprintf(w, "  options that save budget (from page counts; %.2g images and %.2g attachments a page assumed):\n",
		res.ImagesPerPage, res.AttachmentsPerPage)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, s := range nb.Savings {
		fmt.Fprintf(tw, "    %s\t%s\n", optionFlag(s.Option), s.Text)
	}
	tw.Flush()
}

// optionFlag is migrate's flag for a content option of the input.
func optionFlag(option string) string {
	switch option {
	case "skipImages":
		return "--skip-images"
	case "skipAttachments":
		return "--skip-attachments"
	case "skipInk":
		return "--skip-ink"
	}
	return option
}

func estimateText(nb workflows.NotebookScan) string {
	if nb.ETAText != "" {
		return nb.ETAText
	}
	return fmt.Sprintf("about %s for %d Graph requests", nb.ETA.D().Round(time.Second), nb.Requests)
}

// scanJSON is what scan --json prints: the scan's result with the
// estimate in seconds.
type scanJSON struct {
	User      string             `json:"user"`
	Requests  int                `json:"requests"`
	Limits    string             `json:"limits"`
	Notebooks []notebookScanJSON `json:"notebooks"`
}

type notebookScanJSON struct {
	ID         string                  `json:"id"`
	Name       string                  `json:"name"`
	Pages      int                     `json:"pages"`
	Requests   int                     `json:"requests"`
	ETASeconds float64                 `json:"etaSeconds"`
	ETAText    string                  `json:"etaText"`
	Savings    []savingJSON            `json:"savings"`
	Sections   []workflows.SectionScan `json:"sections"`
	Readiness  string                  `json:"readiness,omitempty"`
}

// savingJSON is a content option's saving, the time in seconds.
type savingJSON struct {
	Option     string  `json:"option"`
	Flag       string  `json:"flag"`
	Requests   int     `json:"requests"`
	ETASeconds float64 `json:"etaSeconds"`
	Text       string  `json:"text"`
}

func scanJSONOf(res *workflows.ScanResult) scanJSON {
	out := scanJSON{User: res.User, Requests: res.Requests, Limits: res.Limits, Notebooks: []notebookScanJSON{}}
	for _, nb := range res.Notebooks {
		savings := []savingJSON{}
		for _, s := range nb.Savings {
			savings = append(savings, savingJSON{Option: s.Option, Flag: optionFlag(s.Option), Requests: s.Requests,
				ETASeconds: s.ETA.D().Seconds(), Text: s.Text})
		}
		out.Notebooks = append(out.Notebooks, notebookScanJSON{ID: nb.ID, Name: nb.Name, Pages: nb.Pages, Requests: nb.Requests,
			ETASeconds: nb.ETA.D().Seconds(), ETAText: estimateText(nb), Savings: savings, Sections: nb.Sections,
			Readiness: nb.Readiness})
	}
	return out
}
