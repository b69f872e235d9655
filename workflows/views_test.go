package workflows

import (
	"strings"
	"testing"
)

// TestViewsNotMadeReachesTheReport: the layout's note that the Views API
// was refused is carried across continue-as-new and named in the
// notebook's report and its summary line.
func TestViewsNotMadeReachesTheReport(t *testing.T) {
	const note = `the view "OneNote order" was not made for 1 section databases (Work/Inbox): Notion refused the Views API`
	nb := &notebook{name: "Work", viewsNotMade: note}
	if got := nb.state().ViewsNotMade; got != note {
		t.Errorf("carried state holds %q, want %q", got, note)
	}
	rep := nb.report()
	if rep.ViewsNotMade != note {
		t.Errorf("report holds %q, want %q", rep.ViewsNotMade, note)
	}
	if s := nb.summary(rep); !strings.Contains(s, note) {
		t.Errorf("summary %q does not name the refused view", s)
	}
	if s := (&notebook{name: "Work"}).summary(NotebookReport{NotebookName: "Work"}); strings.Contains(s, "view") {
		t.Errorf("summary without a refusal names a view: %q", s)
	}
}
