package activities

import (
	"slices"
	"testing"

	"github.com/notebridge/notebridge/convert"
	"github.com/notebridge/notebridge/report"
)

func TestContentEntries(t *testing.T) {
	for _, c := range []struct {
		name string
		in   convert.Loss
		want report.Entry
	}{
		{"dropped ink is lost", convert.Loss{Kind: convert.LossInk, Severity: convert.Dropped, Detail: "ink is not returned by Graph", Near: "Sketch", Count: 2},
			report.Entry{Kind: "ink", Severity: report.Lost, What: "ink is not returned by Graph", Where: "near “Sketch”", Count: 2}},
		{"a mapped colour is approximated", convert.Loss{Kind: convert.LossColor, Severity: convert.Mapped, Detail: `text colour "#c00000" shown as Notion "red"`, Count: 1},
			report.Entry{Kind: "color-approximated", Severity: report.Approximated, What: `text colour "#c00000" shown as Notion "red"`, Count: 1}},
		{"a degraded cell is approximated", convert.Loss{Kind: convert.LossCellFlattened, Severity: convert.Degraded, Detail: "table cell with a list flattened into text"},
			report.Entry{Kind: "table-cell-flattened", Severity: report.Approximated, What: "table cell with a list flattened into text", Count: 1}},
	} {
		if got := contentEntries([]convert.Loss{c.in}); !slices.Equal(got, []report.Entry{c.want}) {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

func TestLossSummary(t *testing.T) {
	es := report.Merge([]report.Entry{
		{Kind: "color-approximated", Severity: report.Approximated, What: "colour shown as red", Count: 3},
		{Kind: "ink", Severity: report.Lost, What: "ink is not returned by Graph", Count: 1},
	})
	lost, approx, samples := lossSummary(es)
	if lost != 1 || approx != 3 {
		t.Errorf("counts %d lost, %d approximated", lost, approx)
	}
	want := []string{"lost · ink: ink is not returned by Graph", "approximated · color-approximated: colour shown as red (×3)"}
	if !slices.Equal(samples, want) {
		t.Errorf("samples %q, want %q (lost first, no Go values)", samples, want)
	}
}
