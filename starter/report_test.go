package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	graph "github.com/notebridge/notebridge/emulator/graph"
	notionemu "github.com/notebridge/notebridge/emulator/notion"
	"github.com/notebridge/notebridge/internal/stack"
	"github.com/notebridge/notebridge/report"
	"github.com/notebridge/notebridge/workflows"
)

// TestReportWritesTheJSONReport migrates a notebook with one section
// left out, so links to its pages stay text, then writes the loss report
// with starter report --out: the file validates against
// docs/report.schema.json, counts every migrated page, and holds the
// link pass's losses.
func TestReportWritesTheJSONReport(t *testing.T) {
	h := newHarnessWith(t, graph.GenSpec{Seed: 3, Owner: "alice", Notebooks: 1, SectionsPerContainer: 3, PagesPerSection: 3, LinksPerPage: 2})
	if r := h.login(t); r.code != 0 {
		t.Fatalf("login:\n%v", r)
	}
	h.startWorker(t)
	id := workflows.NotebookWorkflowID("alice", h.notebook.ID)
	t.Setenv("NOTION_TOKEN", h.st.NotionToken)
	out := filepath.Join(t.TempDir(), "report.json")

	if r := h.cmd(t, "report", "-w", "migrate/alice/none", "--out", out); r.code == 0 {
		t.Errorf("report of a migration that does not exist:\n%v", r)
	}
	excluded := h.notebook.Sections[2]
	if r := h.cmd(t, "migrate", "-user", "alice", "-notebook", h.notebook.ID, "-notion-parent", h.notion.RootPageID(),
		"-limits", testProfile, "-exclude", excluded.ID); r.code != 0 {
		t.Fatalf("migrate:\n%v", r)
	}
	r := h.cmd(t, "report", "-w", id, "--out", out, "--notion-url", h.notionURL)
	if r.code != 0 || !strings.Contains(r.stdout, "Wrote the loss report of notebook") {
		t.Fatalf("report:\n%v", r)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	validateAgainstSchema(t, raw)
	var rep report.Report
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	links := 0
	for _, k := range rep.Kinds {
		if k.Kind == "link" {
			links += k.Count
		}
	}
	if rep.Pages != 6 || len(rep.Sections) != 2 || rep.ReportPageID == "" || links == 0 {
		t.Errorf("report: %d pages in %d sections (want 6 in 2), report page %q, %d link losses (want some: section %q was left out)",
			rep.Pages, len(rep.Sections), rep.ReportPageID, links, excluded.DisplayName)
	}
	t.Logf("report: %d pages, %d lost, %d approximated, kinds %v", rep.Pages, rep.Lost, rep.Approximated, rep.Kinds)
	if rep.Verification != (report.Verification{Verified: 6}) {
		t.Errorf("verification: %+v, want 6 verified", rep.Verification)
	}

	// starter verify after a person edited one page in Notion: that page
	// is edited, the others verified; by migration and by notebook page.
	var edited, block string
	stack.EachRow(h.notion.Export().Pages, func(row notionemu.Page) {
		for _, b := range row.Blocks {
			if _, ok := b.Content["rich_text"]; ok && edited == "" {
				edited, block = row.ID, b.ID
			}
		}
	})
	if err := h.notion.PersonEditText(block, "Rewritten by hand"); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"verify", "-w", id}, {"verify", "--notebook-page", rep.NotebookPageID}} {
		r := h.cmd(t, args[0], args[1:]...)
		if r.code != 0 || !strings.Contains(r.stdout, "5 of 6 pages verified, 1 edited in Notion since (") ||
			!strings.Contains(r.stdout, edited+"): edited") {
			t.Errorf("%s:\n%v", strings.Join(args, " "), r)
		}
	}
}

// validateAgainstSchema checks a JSON report against docs/report.schema.json.
func validateAgainstSchema(t *testing.T, raw []byte) {
	t.Helper()
	sch, err := jsonschema.NewCompiler().Compile("../docs/report.schema.json")
	if err != nil {
		t.Fatalf("the schema does not compile: %v", err)
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("the report does not validate against docs/report.schema.json: %v", err)
	}
}
