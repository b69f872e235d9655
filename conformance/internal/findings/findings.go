// Package findings keeps the conformance checks of emulator mismatches that
// are known and not yet fixed (conformance/README.md lists them) running,
// without failing the suite: a check that fails for an open finding is
// logged and the test is then skipped naming the finding, while every other
// failure in the same test still fails it. A finding is closed by deleting
// it from its suite's list; its checks then fail again if the emulator
// still disagrees.
package findings

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// Open maps an open finding's id (G1, N2, ...) to its one-line summary.
type Open map[string]string

// Tracker routes one test's failures: to t.Errorf, or, for an open finding,
// to the log and a skip at the end (Finish).
type Tracker struct {
	t    testing.TB
	open Open
	hit  map[string]bool
}

// New returns a tracker for t. Call Finish when the test's checks are done
// (defer it).
func New(t testing.TB, open Open) *Tracker {
	return &Tracker{t: t, open: open, hit: map[string]bool{}}
}

// Errorf fails the test, unless id names an open finding: then the failure
// is logged and the test is skipped by Finish. An empty id is a plain
// failure.
func (tr *Tracker) Errorf(id, format string, args ...any) {
	tr.t.Helper()
	msg := fmt.Sprintf(format, args...)
	if _, open := tr.open[id]; id != "" && open {
		tr.hit[id] = true
		tr.t.Logf("open finding %s: %s", id, msg)
		return
	}
	if id != "" {
		msg = id + ": " + msg
	}
	tr.t.Error(msg)
}

// Finish skips the test, naming the open findings its checks ran into, if
// it has not failed otherwise (a test that failed stays failed).
func (tr *Tracker) Finish() {
	tr.t.Helper()
	if len(tr.hit) == 0 || tr.t.Failed() {
		return
	}
	ids := make([]string, 0, len(tr.hit))
	for id := range tr.hit {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var parts []string
	for _, id := range ids {
		parts = append(parts, id+" ("+tr.open[id]+")")
	}
	tr.t.Skipf("skipped for open emulator finding(s) %s; see conformance/README.md. The checks above fail until the emulator is fixed.", strings.Join(parts, "; "))
}
