package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/notebridge/notebridge/internal/progress"
	"github.com/notebridge/notebridge/workflows"
)

const retryDescription = `Runs a migration's failed or skipped sections again: --section names one (by ID, name or
path, as the status display lists them) with the retry-section update; --all sends retry-failed.
The migration answers at once: the section runs again, or why not (it is running, it is done, no
such section: the answer lists those that can be retried). A password-protected section that was
skipped can be retried once it is unlocked in OneNote. Pages already in Notion are not written
again.`

// answerJSON is what retry --json prints: the migration's answer.
type answerJSON struct {
	WorkflowID string `json:"workflowId"`
	Answer     string `json:"answer"`
	// Section is the section a retry --section ran again, by ID.
	Section string `json:"section,omitempty"`
}

func newRetryCmd(c *cli, name, summary string) *cobra.Command {
	var section string
	var all bool
	var tf *temporalFlags
	var target *targetFlags
	cmd := c.newCommand(name, "(-w ID | --user U [--notebook N]) (--section S | --all)", summary, retryDescription, func() string {
		id := shellQuote(target.placeholder())
		sec := "<sectionID>"
		if section != "" {
			sec = section
		}
		return fmt.Sprintf("temporal workflow update execute %[1]s --workflow-id %[2]s --name %[3]s --input %[4]s\n"+
			"temporal workflow update execute %[1]s --workflow-id %[2]s --name %[5]s",
			tf.cliFlags(), id, workflows.UpdateRetrySection, shellQuote(fmt.Sprintf("%q", sec)), workflows.UpdateRetryFailed)
	}, func(ctx context.Context, _ *cobra.Command) error {
		return c.retry(ctx, tf, target, section, all)
	})
	fs := cmd.Flags()
	tf = c.temporalFlags(fs, false)
	target = c.targetFlags(fs)
	fs.StringVar(&section, "section", "", "the failed or skipped section to run again: its ID, name or path (a name two sections share is refused, with both listed)")
	fs.BoolVar(&all, "all", false, "run every failed or skipped section again")
	return cmd
}

// retry runs the section (or all) of the target migration again.
func (c *cli) retry(ctx context.Context, tf *temporalFlags, target *targetFlags, section string, all bool) error {
	if (section == "") == !all {
		return usagef("give either --section S or --all")
	}
	tc, ref, err := target.dial(ctx, tf)
	if err != nil {
		return err
	}
	defer tc.Close()
	id := ref.id
	g := &progress.Gatherer{Client: tc, ID: id, RunID: ref.runID}
	snap, err := gather(ctx, g)
	if err != nil {
		return err
	}
	if !snap.Running() {
		return fmt.Errorf("%s is %s, so there is nothing to retry: migrate the notebook again (pages already in Notion are skipped)",
			id, progress.StatusName(snap.Status))
	}
	var answer, secID string
	if all {
		answer, err = workflows.RetryFailed(ctx, tc, id)
	} else {
		if secID, err = sectionID(snap.Progress.Sections, section); err != nil {
			return err
		}
		answer, err = workflows.RetrySection(ctx, tc, id, secID)
	}
	if err != nil {
		return refusal(err)
	}
	if c.json {
		return c.printJSON(answerJSON{WorkflowID: id, Answer: answer, Section: secID})
	}
	fmt.Fprintf(c.stdout, "%s: %s. Follow with:\n  %s\n", id, answer, tf.starter("status", "-w", id, "--follow"))
	return nil
}

// sectionID finds the section a person named by ID, path or name (a
// name case aside) among the notebook's sections. A name two sections
// share (sections of that name in different groups) is refused with
// their paths and IDs, as is one that matches none closely enough to
// tell: the migration's answer then lists those it can retry.
func sectionID(sections []workflows.SectionSummary, name string) (string, error) {
	name = strings.TrimSpace(name)
	var byPath, byName []workflows.SectionSummary
	for _, s := range sections {
		switch {
		case s.ID == name:
			return s.ID, nil
		case s.Path == name:
			byPath = append(byPath, s)
		case strings.EqualFold(s.Name, name) || strings.EqualFold(s.Path, name):
			byName = append(byName, s)
		}
	}
	matches := byPath
	if len(matches) == 0 {
		matches = byName
	}
	switch len(matches) {
	case 0:
		return name, nil // the migration says what it can retry
	case 1:
		return matches[0].ID, nil
	}
	cands := make([]string, len(matches))
	for i, s := range matches {
		cands[i] = fmt.Sprintf("%q (ID %s, %s)", s.Path, s.ID, s.Status)
	}
	return "", usagef("--section %q names %d sections: %s. Name one by its path or ID", name, len(matches), strings.Join(cands, ", "))
}
