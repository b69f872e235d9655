package workflows_test

import (
	"strings"
	"testing"

	notionemu "github.com/notebridge/notebridge/emulator/notion"
	"github.com/notebridge/notebridge/internal/stack"
	"github.com/notebridge/notebridge/notion"
)

// TestPartialWritesAreCaughtEndToEnd migrates a notebook while Notion
// keeps only part of some writes of its pages (the emulator's
// partial-write fault, limited to the OneNote pages' rows so the
// containers and the report stay whole): no page whose content differs
// from its converted OneNote content is reported verified, each page the
// fault cut is written again or named, and the verdicts add up.
func TestPartialWritesAreCaughtEndToEnd(t *testing.T) {
	h := newFaultHarness(t)
	parent := h.parent(t, "partial writes")
	want := h.expected(t)
	var titles []string
	for _, s := range emuSections(h.nb) {
		for _, p := range s.Pages {
			titles = append(titles, p.Title)
		}
	}
	h.notion.ResetPartialWrites()
	h.notion.SetFaults(notionemu.Faults{PartialWrite: 0.6, PartialWritePages: titles})
	rep, err := h.migrate(t, h.input(h.nb, parent), h.nb.ID)
	h.notion.SetFaults(notionemu.Faults{})
	if err != nil {
		t.Fatalf("migration failed: %v", err)
	}
	t.Logf("%s", rep.Message)
	cut := h.notion.PartialWrites()
	if len(cut) == 0 {
		t.Fatal("the fault cut no write: nothing was tested")
	}
	rows, dup := exportedRowsUnder(t, h.notion.Export(), parent, h.nb.DisplayName)
	if len(dup) > 0 || len(rows) != len(want) || rep.FailedPages != 0 {
		t.Fatalf("%d rows (duplicates %v) for %d pages, %d failed", len(rows), dup, len(want), rep.FailedPages)
	}
	verdicts := map[string]string{}
	stack.EachRow(h.notion.Export().Pages, func(r notionemu.Page) {
		if v, ok := r.Properties[notion.PropVerification].(map[string]any); ok {
			if sel, ok := v["select"].(map[string]any); ok {
				verdicts[compact(r.ID)], _ = sel["name"].(string)
			}
		}
	})
	hit := map[string]bool{}
	for _, w := range cut {
		hit[compact(w.PageID)] = true
	}
	verified, differs, cutPages := 0, 0, 0
	for id, sig := range want {
		r := rows[id]
		v := verdicts[compact(r.ID)]
		intact := r.Signature == sig
		if hit[compact(r.ID)] {
			cutPages++
		}
		switch {
		case v == "verified" && !intact:
			t.Errorf("page %s is reported verified but differs from its OneNote content:\n got %s\nwant %s", id, clipSig(r.Signature), clipSig(sig))
		case v == "verified":
			verified++
		case v == "differs":
			differs++
		default:
			t.Errorf("page %s: verdict %q", id, v)
		}
	}
	t.Logf("%d writes cut on %d pages; %d pages verified, %d named", len(cut), cutPages, verified, differs)
	if v := rep.Verification; v == nil || v.Verified != verified || v.Differs != differs || verified+differs != len(want) {
		t.Errorf("report verification %+v, want %d verified and %d differing of %d", rep.Verification, verified, differs, len(want))
	}
	if differs > 0 && !strings.Contains(rep.Message, "differ") {
		t.Errorf("the message does not say pages differ: %s", rep.Message)
	}
}

func compact(id string) string { return strings.ReplaceAll(id, "-", "") }
