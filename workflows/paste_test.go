package workflows

import (
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/notebridge/notebridge/failure"
	"github.com/notebridge/notebridge/internal/shell"
	"github.com/notebridge/notebridge/internal/shell/shelltest"
)

// printedCommand finds the commands in a text a person reads: in
// backticks, starting with a program of ours.
var printedCommand = regexp.MustCompile("`((?:starter|temporal) [^`]*)`")

// TestPrintedCommandsPaste collects every command the workflows print (the
// next-command hints of progress, the retry hint, the static details)
// for a notebook, sections and a user whose IDs hold what OneNote's and
// people's names hold ("!", quotes, spaces), pastes each into bash with
// history expansion on, and checks it parses and carries each ID as one
// word.
func TestPrintedCommandsPaste(t *testing.T) {
	const (
		user   = "alice o'hara"
		nbID   = "0-5f1a!101"
		secID  = "0-5f1a!2-9c!s3"
		secPth = `Work / "Q3" plans! it's $HOME`
	)
	nb := &notebook{dep: deployment{App: "app", Shards: 2}, in: MigrateInput{User: user, Notebook: nbID}, id: nbID,
		taskQueue: "notebridge",
		sections:  []*SectionSummary{{SectionRef: SectionRef{ID: secID, Path: secPth}, Status: SectionFailed}}}
	now := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	ongoing := func(service, typ string) *UpstreamError {
		return &UpstreamError{Service: service, Type: typ, Ongoing: true, Section: secPth, At: now, Since: now}
	}
	nbWF, secWF, lim := NotebookWorkflowID(user, nbID), SectionWorkflowID(user, nbID, secID), nb.dep.limiterOf(user)
	for _, tc := range []struct {
		name string
		text string
		// words each must come back as one word of a command.
		words []string
	}{
		{"sign-in", nb.nextAction(Health{LastError: ongoing(ServiceGraph, failure.NotSignedIn)}), []string{user}},
		{"graph breaker", nb.nextAction(Health{State: "failing", Breaker: &BreakerHold{Scope: "user", Until: now},
			LastError: ongoing(ServiceGraph, "")}), []string{lim}},
		{"notion down", nb.nextAction(Health{State: "failing", LastError: ongoing(ServiceNotion, "")}), []string{secWF}},
		{"stall", nb.nextAction(Health{Stall: "no page for 5m"}), []string{"notebridge", lim}},
		{"retry", nb.retryCommand(NotebookProgress{Sections: []SectionSummary{*nb.sections[0]}}),
			[]string{user, nbID, secPth, nbWF, `"` + secID + `"`}},
		{"details", NotebookDetails(nbID, "Work", MigrateInput{User: user}), []string{nbWF}},
	} {
		cmds := printedCommand.FindAllStringSubmatch(tc.text, -1)
		if len(cmds) == 0 {
			t.Errorf("%s: no command in %q", tc.name, tc.text)
		}
		var got []string
		for _, m := range cmds {
			pasted, err := shelltest.Paste(m[1])
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
				continue
			}
			if len(pasted) != 1 {
				t.Errorf("%s: %s pastes as %d commands", tc.name, m[1], len(pasted))
				continue
			}
			// What bash reads is what was printed, word for word.
			if again := shell.Join(pasted[0]...); again != m[1] {
				t.Errorf("%s: %s pastes as %q", tc.name, m[1], pasted[0])
			}
			got = append(got, pasted[0]...)
			t.Logf("%s: %s", tc.name, m[1])
		}
		for _, w := range tc.words {
			if !slices.Contains(got, w) {
				t.Errorf("%s: the commands carry %q, not %q as one word", tc.name, got, w)
			}
		}
	}
}
