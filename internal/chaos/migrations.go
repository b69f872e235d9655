package chaos

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"go.temporal.io/sdk/client"

	graph "github.com/notebridge/notebridge/emulator/graph"
	"github.com/notebridge/notebridge/internal/stack"
	"github.com/notebridge/notebridge/internal/verify"
	"github.com/notebridge/notebridge/workflows"
)

// userNames are the users of a run, the first Options.Users of them.
var userNames = []string{"alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy"}

// Migration is one user's migration in a run and what it came to.
type Migration struct {
	User string `json:"user"`
	// WorkflowID and Input are the migration's, Report its result.
	WorkflowID string                   `json:"workflowID"`
	Input      string                   `json:"input"`
	Completed  bool                     `json:"completed"`
	Report     workflows.NotebookReport `json:"report"`
	// FailedSections are the sections that failed at some point (their
	// errors), and RetriedFailed whether retry-failed was signalled.
	FailedSections []string `json:"failedSections,omitempty"`
	RetriedFailed  bool     `json:"retriedFailed"`
	// Verify compares the user's part of the Notion export with the
	// user's notebook.
	Verify *verify.Report `json:"verify"`
	// GraphRequests and Graph429s are the Graph emulator's counts for
	// the user, PermitUnits the limiter's units granted to the user.
	GraphRequests, Graph429s, PermitUnits int64
}

// migration is a Migration in progress.
type migration struct {
	*Migration
	spec graph.GenSpec
	exp  *verify.Expected
	// parent is the Notion page the user's notebook goes under.
	parent    string
	startOpts client.StartWorkflowOptions
	input     workflows.MigrateInput
	ended     bool
}

// genSpec is user i's generated notebook: 4 sections (2 in a section
// group), subpages two levels deep, an image and an attachment on every
// page, a PDF printout on every tenth, ink on every fourth and an internal
// link on each; each user's is different (its seed).
func genSpec(pages int, owner string, i int) graph.GenSpec {
	return graph.GenSpec{Seed: 7 + uint64(i), Owner: owner, Notebooks: 1, GroupDepth: 1, GroupsPerLevel: 1,
		SectionsPerContainer: 2, PagesPerSection: (pages + sections - 1) / sections, SubpageLevels: 2,
		ImagesPerPage: 1, AttachmentsPerPage: 1, PrintoutEvery: 10, InkEvery: 4, LinksPerPage: 1,
		ImageBytes: 1024, AttachmentBytes: 2048}
}

// expect makes the users' migrations and what each must produce, and
// plans the run's events over the Graph requests they need together.
func (r *run) expect(ctx context.Context) error {
	o, res := r.o, r.res
	for i, u := range userNames[:o.Users] {
		spec := genSpec(o.Pages, u, i)
		exp, err := verify.Expect(ctx, verify.Source{User: u, Notebooks: graph.Generate(spec)})
		if err != nil {
			return err
		}
		m := &migration{Migration: &Migration{User: u}, spec: spec, exp: exp}
		r.migs = append(r.migs, m)
		res.Migrations = append(res.Migrations, m.Migration)
		res.Pages += len(exp.Pages)
		res.ExpectedRequests += expectedRequests(exp, spec)
	}
	res.Planned = merge(Plan(o.Seed, o.Kills, o.ServerRestarts, res.ExpectedRequests),
		PlanRefreshKills(o.Seed, o.RefreshKills, res.ExpectedRequests),
		PlanDatabaseRestarts(o.Seed, o.DatabaseRestarts, res.ExpectedRequests))
	return nil
}

// prepare gives each user a Notion page of their own to migrate under
// (so that each user's part of the export is checked on its own) and
// the input that starts the migration.
func (r *run) prepare(st *stack.Stack, limits string) error {
	for _, m := range r.migs {
		parent, err := st.Notion.AddPage(st.Root, "Chaos: "+m.User, true)
		if err != nil {
			return fmt.Errorf("chaos: %w", err)
		}
		nb := st.Notebooks[m.User][0]
		m.parent = parent
		m.input = workflows.MigrateInput{User: m.User, Notebook: nb.ID, NotionParent: parent, Limits: limits,
			PagesPerRun: r.o.PagesPerRun}
		js, _ := json.Marshal(m.input)
		m.Input, m.WorkflowID = string(js), workflows.NotebookWorkflowID(m.User, nb.ID)
		m.startOpts = client.StartWorkflowOptions{ID: m.WorkflowID, TaskQueue: taskQueue,
			StaticSummary: "Chaos: migrate " + nb.DisplayName + " of " + m.User}
	}
	return nil
}

// tokenFiles are the users' token files.
func (r *run) tokenFiles() []string {
	var out []string
	for _, m := range r.migs {
		out = append(out, stack.TokenFile(r.o.Dir, m.User))
	}
	return out
}

// judge adds the migration's problems, each naming the user.
func (m *Migration) judge(add func(format string, args ...any)) {
	if !m.Completed {
		add("%s: the migration did not complete", m.User)
	}
	if len(m.FailedSections) > 0 {
		add("%s: sections failed and waited for an operator: %s", m.User, strings.Join(m.FailedSections, "; "))
	}
	if m.Completed && (m.Report.FailedPages > 0 || m.Report.FailedSections > 0) {
		add("%s: the migration reports %d failed pages and %d failed sections: %s", m.User, m.Report.FailedPages, m.Report.FailedSections, m.Report.Message)
	}
	if !m.Verify.OK() {
		add("%s: the Notion export differs from the source: %s", m.User, m.Verify.Summary())
	}
}
