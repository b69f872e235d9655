package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"go.temporal.io/api/serviceerror"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/workflows"
)

const importDescription = `Imports a notebook from OneNote's own files, without Microsoft Graph: a .onepkg package
(in OneNote: File > Export > Notebook > OneNote Package), a .onetoc2 table of contents with
its sections beside it, a .one section, or a notebook's folder. It starts the MigrateNotebook
workflow with the input field "file" and follows it like migrate does. The workers read the
file at the path given: on the dev setup a local path, under compose and the cluster a path on
a volume every worker mounts (see docs/file-import.md).

The file is read here first; a missing, empty or unreadable file, or one that is no OneNote
notebook, is refused by name before anything starts. --dry-run lists the sections (in order,
with their groups) and pages (title, level, order, counts of images, files and ink) from the
file and starts nothing. Password-protected sections are skipped and named; the recycle bin is
left out. Each page's row is keyed by its GUID, the one Graph shows in the page's OneNote
link: importing again writes only what changed, and a later migration or sync of the notebook
through Graph that names the import's notebook page (--adopt-notebook-page) updates these rows
in place.`

// importFlagOfField names the flag of each input field, for errors.
var importFlagOfField = map[string]string{
	"user": "--user", "notebook": "--notebook", "notionParent": "--notion-parent", "file": "--file",
	"sectionParallelism": "--section-parallelism", "pageParallelism": "--page-parallelism", "imageAlt": "--image-alt",
}

func newImportCmd(c *cli, name, summary string) *cobra.Command {
	in := workflows.MigrateInput{User: "local"}
	var o migrateOptions
	var tf *temporalFlags
	cmd := c.newCommand(name, "--file PATH --notion-parent P [flags]", summary, importDescription, func() string {
		ex := in
		if ex.File == "" {
			ex.File = "/path/to/Notebook.onepkg"
		}
		if ex.NotionParent == "" {
			ex.NotionParent = "<Notion page ID>"
		}
		return startCommandText(tf, ex)
	}, func(ctx context.Context, cmd *cobra.Command) error {
		return c.importFile(ctx, tf, in, o)
	})
	fs := cmd.Flags()
	tf = c.temporalFlags(fs, true)
	fs.StringVar(&in.File, "file", "", "the OneNote file: .onepkg, .onetoc2, .one, or a notebook's folder (\"file\")")
	fs.StringVar(&in.User, "user", in.User, "whom the migration is for, a label (no Microsoft sign-in is needed) (\"user\")")
	fs.StringVar(&in.Notebook, "notebook", "", "the notebook's name in Notion (default: the file's) (\"notebook\")")
	fs.StringVar(&in.NotionParent, "notion-parent", "", "ID of the Notion page, shared with the integration, the notebook goes under (\"notionParent\")")
	fs.BoolVar(&in.DryRun, "dry-run", false, "list the file's sections and pages, start nothing")
	fs.IntVar(&in.SectionParallelism, "section-parallelism", 0, "sections imported at once (default 3) (\"sectionParallelism\")")
	fs.IntVar(&in.PageParallelism, "page-parallelism", 0, "pages of a section in the pipeline at once (default 3) (\"pageParallelism\")")
	contentFlags(fs, &in.ContentOptions)
	fs.BoolVar(&o.detach, "detach", false, "start it and return, without following")
	fs.DurationVar(&o.interval, "interval", time.Second, "how often the status display refreshes")
	return cmd
}

// importedJSON is what import --dry-run --json prints.
type importedJSON struct {
	Type string `json:"type"` // "fileListing"
	activities.FileListing
}

// importFile checks the file, then lists it (a dry run) or starts its
// import and follows it.
func (c *cli) importFile(ctx context.Context, tf *temporalFlags, in workflows.MigrateInput, o migrateOptions) error {
	if strings.TrimSpace(in.File) == "" {
		return usagef("--file is required: the OneNote file to import (a .onepkg from File > Export > Notebook > OneNote Package)")
	}
	if o.interval <= 0 {
		return usagef("--interval must be positive")
	}
	abs, err := filepath.Abs(in.File)
	if err != nil {
		return usagef("--file %q: %v", in.File, err)
	}
	in.File = abs
	if err := validateWith(&in, importFlagOfField); err != nil {
		return err
	}
	listing, err := activities.ListFile(in.File)
	if err != nil {
		return err
	}
	if in.Notebook != "" {
		listing.Notebook = in.Notebook
	}
	if in.DryRun {
		if c.json {
			return c.printJSON(importedJSON{Type: "fileListing", FileListing: listing})
		}
		printListing(c, listing)
		return nil
	}
	tc, err := tf.dial(ctx)
	if err != nil {
		return err
	}
	defer tc.Close()
	c.warnNoWorker(ctx, tc, tf)
	id := workflows.NotebookWorkflowID(in.User, listing.NotebookID)
	opts := workflows.StartOptions(tf.taskQueue, listing.NotebookID, listing.Notebook, in)
	opts.WorkflowExecutionErrorWhenAlreadyStarted = true
	run, err := tc.ExecuteWorkflow(ctx, opts, workflows.MigrateNotebookName, in)
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &started) {
		return fmt.Errorf("an import of notebook %q for %s is already running (%s), so nothing was started: follow it with \"%s\", "+
			"or end it (\"%s\") and import again", listing.Notebook, in.User, id, tf.starter("status", "-w", id, "--follow"),
			tf.starter("finish", "-w", id))
	}
	if err != nil {
		return fmt.Errorf("start %s: %w", workflows.MigrateNotebookName, err)
	}
	if c.json {
		if err := c.printJSON(startedJSON{Type: "started", WorkflowID: id, RunID: run.GetRunID(), User: in.User,
			NotebookID: listing.NotebookID, Notebook: listing.Notebook, Sections: len(listing.Sections), Pages: listing.Pages}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(c.stdout, "Started %s (run %s): notebook %q from %s, %d sections, %d pages.\n",
			id, run.GetRunID(), listing.Notebook, in.File, len(listing.Sections), listing.Pages)
	}
	if o.detach {
		if !c.json {
			fmt.Fprintf(c.stdout, "Follow it with:\n  %s\n", tf.starter("status", "-w", id, "--follow"))
		}
		return nil
	}
	scan := map[string]int{}
	for _, s := range listing.Sections {
		scan[s.ID] = len(s.Pages)
	}
	st := &statusCmd{cli: c, tc: tc, tf: tf, id: id, scan: scan, interval: o.interval}
	return st.follow(ctx)
}

// printListing prints a file's sections and pages as text.
func printListing(c *cli, l activities.FileListing) {
	fmt.Fprintf(c.stdout, "Notebook %q (ID %s) in %s: %d sections, %d pages. Nothing was started (dry run).\n",
		l.Notebook, l.NotebookID, l.File, len(l.Sections), l.Pages)
	for _, s := range l.Sections {
		path := strings.Join(append(append([]string(nil), s.Groups...), s.Name), " / ")
		switch {
		case s.Locked:
			fmt.Fprintf(c.stdout, "\n%s: password-protected, will be skipped\n", path)
			continue
		case s.Error != "":
			fmt.Fprintf(c.stdout, "\n%s: cannot be read: %s\n", path, s.Error)
			continue
		}
		fmt.Fprintf(c.stdout, "\n%s (%d pages)\n", path, len(s.Pages))
		for _, p := range s.Pages {
			var counts []string
			for _, n := range []struct {
				n    int
				what string
			}{{p.Images, "images"}, {p.Files, "files"}, {p.Ink, "ink"}} {
				if n.n > 0 {
					counts = append(counts, fmt.Sprintf("%d %s", n.n, n.what))
				}
			}
			if p.Conflict {
				counts = append(counts, "conflict page")
			}
			extra := ""
			if len(counts) > 0 {
				extra = " (" + strings.Join(counts, ", ") + ")"
			}
			fmt.Fprintf(c.stdout, "  %3d. %s%s%s\n", p.Order+1, strings.Repeat("  ", p.Level), p.Title, extra)
		}
	}
}
