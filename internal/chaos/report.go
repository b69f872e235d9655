package chaos

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// verdict is "PASS" or "FAIL".
func (r *Result) verdict() string {
	if r.OK() {
		return "PASS"
	}
	return "FAIL"
}

// figures are the report's lines, shared by the text and the Markdown.
func (r *Result) figures() [][2]string {
	o := r.Options
	notebook := fmt.Sprintf("%d pages in 4 sections (2 in a section group), subpages, images, attachments, printouts, internal links", r.Pages)
	if len(r.Migrations) > 1 {
		notebook = fmt.Sprintf("%d users migrating at once (%s), each a notebook of %d pages in 4 sections (2 in a section group), subpages, images, attachments, printouts, internal links: %d pages in all",
			len(r.Migrations), strings.Join(r.users(), ", "), r.Pages/len(r.Migrations), r.Pages)
	}
	rows := [][2]string{
		{"result", r.verdict()},
		{"notebook", notebook},
		{"chaos", r.chaosLine()},
		{"kill kinds", r.killKinds()},
		{"sign-in", r.signInLine()},
		{"worker incarnations", r.workersLine()},
		{"duration", r.Duration.Round(time.Second).String()},
		{"limits", fmt.Sprintf("OneNote limits time-scaled x%g (an hour lasts %s); Notion %g requests/s", o.TimeScale, time.Duration(float64(time.Hour)/o.TimeScale).Round(time.Second), o.NotionRate)},
	}
	for _, m := range r.Migrations {
		rows = append(rows, m.rows(len(r.Migrations) > 1)...)
	}
	if n, ok := r.unattachedUploads(); ok {
		rows = append(rows, [2]string{"unattached file uploads", fmt.Sprintf("%d in the whole workspace (uploads no block uses, "+
			"left by writes cut short; harmless, left as they are)", n)})
	}
	rows = append(rows,
		[2]string{"Graph", fmt.Sprintf("%d requests (at least %d needed), %d throttled; %d permit units granted; %d windows over a limit", r.GraphRequests, r.ExpectedRequests, r.Graph429s, r.PermitUnits, len(r.Violations))},
		[2]string{"Notion", fmt.Sprintf("%d requests", r.NotionRequests)},
		[2]string{"histories", fmt.Sprintf("%d runs, %d events, %.1f MB of JSON searched for the Graph and Notion tokens: %d hold one", r.Histories.Runs, r.Histories.Events, float64(r.Histories.Bytes)/1e6, len(r.Histories.Leaks))},
		[2]string{"worker log", fmt.Sprintf("%d secrets found", len(r.LogLeaks))},
	)
	return rows
}

// rows are the migration's lines of the report, named after its user if
// named.
func (m *Migration) rows(named bool) [][2]string {
	label := func(s string) string {
		if named {
			return s + " (" + m.User + ")"
		}
		return s
	}
	line := "did not complete"
	if m.Completed {
		line = fmt.Sprintf("completed: %d written, %d skipped, %d failed pages, %d failed sections", m.Report.Written, m.Report.Skipped, m.Report.FailedPages, m.Report.FailedSections)
		if m.Report.Reruns > 0 {
			// Lost runs are not the page's fault (workflows/rerun.go):
			// how many there were, and the most one page met.
			line += fmt.Sprintf("; %d page runs lost with their worker and run again, at most %d for one page", m.Report.Reruns, m.Report.MostReruns)
		}
		if m.RetriedFailed {
			line += "; retry-failed was signalled once"
		}
	}
	rows := [][2]string{{label("migration"), line}}
	if v := m.Verify; v != nil {
		rows = append(rows,
			[2]string{label("Notion export vs source"), fmt.Sprintf("%d of %d pages equal block for block; %d missing, %d duplicated, %d unexpected, %d property mismatches, %d pages with differing blocks (%d blocks), %d container problems; %d blocks compared", v.Matched, v.ExpectedPages, len(v.Missing), len(v.Duplicates), len(v.Unexpected), len(v.Mismatches), len(v.Different), v.BlockDiffs, len(v.Containers), v.BlocksExpected)},
			[2]string{label("rows archived"), fmt.Sprintf("%d (in the trash: duplicates the writer removed)", v.ArchivedRows)})
	}
	return rows
}

// unattachedUploads is the workspace's count of file uploads no block
// uses: one figure for the workspace the users share, which every
// migration's comparison counts alike (ok is false without one).
func (r *Result) unattachedUploads() (int, bool) {
	for _, m := range r.Migrations {
		if m.Verify != nil {
			return m.Verify.UnattachedUploads, true
		}
	}
	return 0, false
}

// users names the run's users.
func (r *Result) users() []string {
	var out []string
	for _, m := range r.Migrations {
		out = append(out, m.User)
	}
	return out
}

// workersLine counts the worker incarnations, and with several workers
// the kills each took.
func (r *Result) workersLine() string {
	s := fmt.Sprintf("%d (%d exits without a kill)", r.WorkerStarts, r.SelfExits)
	if n := r.Options.Workers; n > 1 {
		per := make([]int, n)
		for _, k := range r.Kills {
			if k.Worker >= 1 && k.Worker <= n {
				per[k.Worker-1]++
			}
		}
		parts := make([]string, n)
		for i, c := range per {
			parts[i] = fmt.Sprintf("worker %d: %d", i+1, c)
		}
		s = fmt.Sprintf("%d worker processes on one task queue, %s; kills per worker: %s", n, s, strings.Join(parts, ", "))
	}
	return s
}

func (r *Result) killKinds() string {
	n := map[Kind]int{}
	fallbacks := 0
	for _, k := range r.Kills {
		if strings.HasPrefix(k.Detail, fallback) {
			fallbacks++
			n[KillAnytime]++
			continue
		}
		n[k.Kind]++
	}
	s := fmt.Sprintf("%d during a Graph request, %d during a Notion write, %d at a random moment",
		n[KillDuringGraph], n[KillDuringNotionWrite], n[KillAnytime])
	if refresh := n[KillDuringRefresh] + n[KillAfterRefresh]; refresh > 0 || r.Options.RefreshKills > 0 {
		before := 0
		for _, k := range r.Kills {
			if k.BeforeStore {
				before++
			}
		}
		s += fmt.Sprintf(", %d inside a token refresh (%d before the answer reached the worker, %d right after it; %d of them before the new tokens were stored)",
			refresh, n[KillDuringRefresh], n[KillAfterRefresh], before)
	}
	if fallbacks > 0 {
		s += fmt.Sprintf(" (%d of them planned during a request that did not come within %s)", fallbacks, trapPatience)
	}
	return s
}

// signInLine describes the tokens, the refreshes and the lost sign-ins.
func (r *Result) signInLine() string {
	o, si := r.Options, r.SignIns
	ttl := o.TokenTTL
	if ttl == 0 {
		ttl = time.Hour
	}
	rotation := "Microsoft's refresh behaviour (a redeemed refresh token stays valid until it expires)"
	if o.StrictRefreshRotation {
		rotation = "strict refresh rotation (a refresh token is revoked when redeemed)"
	}
	per := 0.0
	if r.GraphRequests > 0 {
		per = float64(si.Refreshes) / float64(r.GraphRequests)
	}
	s := fmt.Sprintf("access tokens live %s; %s; %d refreshes for %d Graph requests (%.3f per request); %d refresh tokens redeemed a second time (by a worker restarted after a kill)",
		ttl, rotation, si.Refreshes, r.GraphRequests, per, si.Reused)
	if len(si.Rejected) > 0 {
		reasons := make([]string, 0, len(si.Rejected))
		for _, k := range []string{"already redeemed", "revoked", "inactive", "expired"} {
			if n := si.Rejected[k]; n > 0 {
				reasons = append(reasons, fmt.Sprintf("%d %s", n, k))
			}
		}
		s += "; refused refreshes: " + strings.Join(reasons, ", ")
	}
	return s + fmt.Sprintf("; %d sign-ins lost", len(si.Lost))
}

// WriteText writes the report for a terminal.
func (r *Result) WriteText(w io.Writer) {
	fmt.Fprintf(w, "\nChaos run: %s\n", r.verdict())
	for _, f := range r.figures()[1:] {
		fmt.Fprintf(w, "  %-24s %s\n", f[0]+":", f[1])
	}
	for _, l := range r.SignIns.Lost {
		fmt.Fprintf(w, "  LOST SIGN-IN %d at %s (%d Graph requests): %s; after %s\n", l.N, l.At.Round(100*time.Millisecond), l.GraphRequests, l.Error, l.AfterKill)
	}
	for _, p := range r.Problems {
		fmt.Fprintf(w, "  PROBLEM: %s\n", p)
	}
	for _, m := range r.Migrations {
		if m.Verify != nil && !m.Verify.OK() {
			fmt.Fprintf(w, "\n%s: %s", m.User, m.Verify.Diff(3))
		}
	}
	if r.Dir != "" {
		fmt.Fprintf(w, "  work directory:          %s (worker logs, temporal.log, histories/)\n", r.Dir)
	}
}

// Markdown is the report as a Markdown document.
func (r *Result) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Chaos run: %s\n\n", r.verdict())
	if len(r.Migrations) == 1 {
		fmt.Fprintf(&b, "A %d-page migration (`%s`) while the worker was killed with SIGKILL %s and the Temporal server restarted %s%s; the result compared with the source through the Notion emulator's export.\n\n",
			r.Pages, r.Migrations[0].WorkflowID, times(len(r.Kills)), times(countKind(r.Restarts, ServerRestart)), r.databaseRestarts())
	} else {
		fmt.Fprintf(&b, "Migrations of %d users at once (%d pages in all) on %d worker processes while the workers were killed with SIGKILL %s and the Temporal server restarted %s%s; each user's result compared with their notebook through the Notion emulator's export.\n\n",
			len(r.Migrations), r.Pages, r.Options.Workers, times(len(r.Kills)), times(countKind(r.Restarts, ServerRestart)), r.databaseRestarts())
	}
	b.WriteString("| | |\n|---|---|\n")
	for _, f := range r.figures() {
		fmt.Fprintf(&b, "| %s | %s |\n", f[0], strings.ReplaceAll(f[1], "|", "\\|"))
	}
	if len(r.Problems) > 0 {
		b.WriteString("\n## Problems\n\n")
		for _, p := range r.Problems {
			fmt.Fprintf(&b, "- %s\n", p)
		}
	}
	if len(r.SignIns.Lost) > 0 {
		b.WriteString("\n## Lost sign-ins\n\nEach ended the migration with the error below; the run signed in again (as `starter login` does) and started the migration again.\n\n| # | at | Graph requests | error | the kill before it |\n|---|---|---|---|---|\n")
		for _, l := range r.SignIns.Lost {
			fmt.Fprintf(&b, "| %d | %s | %d | %s | %s |\n", l.N, l.At.Round(100*time.Millisecond), l.GraphRequests,
				strings.ReplaceAll(l.Error, "|", "\\|"), strings.ReplaceAll(l.AfterKill, "|", "\\|"))
		}
	}
	b.WriteString("\n## Events\n\n| # | at | Graph requests | event | detail | took |\n|---|---|---|---|---|---|\n")
	type row struct {
		f Fired
		n string
	}
	var all []row
	for _, k := range r.Kills {
		n := fmt.Sprintf("kill %d", k.N)
		if r.Options.Workers > 1 {
			n += fmt.Sprintf(" (worker %d)", k.Worker)
		}
		all = append(all, row{k, n})
	}
	for _, s := range r.Restarts {
		all = append(all, row{s, fmt.Sprintf("restart %d", s.N)})
	}
	for i := 1; i < len(all); i++ {
		for j := i; j > 0 && all[j].f.At < all[j-1].f.At; j-- {
			all[j], all[j-1] = all[j-1], all[j]
		}
	}
	for _, x := range all {
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %s |\n", x.n, x.f.At.Round(100*time.Millisecond), x.f.GraphRequests,
			x.f.Kind, strings.ReplaceAll(x.f.Detail, "|", "\\|"), x.f.Took.Round(time.Millisecond))
	}
	b.WriteString("\nThe migration's input (`MigrateNotebook`):\n\n```json\n")
	for _, m := range r.Migrations {
		fmt.Fprintf(&b, "%s\n", m.Input)
	}
	b.WriteString("```\n")
	for _, m := range r.Migrations {
		if m.Verify != nil && !m.Verify.OK() {
			fmt.Fprintf(&b, "\n## Differences (%s)\n\n```\n%s```\n", m.User, m.Verify.Diff(10))
		}
	}
	return b.String()
}

// times says n times in words.
func times(n int) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return fmt.Sprintf("%d times", n)
}
