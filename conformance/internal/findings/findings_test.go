package findings

import (
	"fmt"
	"strings"
	"testing"
)

// recorder is a testing.TB that records instead of failing or skipping.
type recorder struct {
	testing.TB
	errors  []string
	logs    []string
	skipped string
	failed  bool
}

func (r *recorder) Helper() {}
func (r *recorder) Error(args ...any) {
	r.failed = true
	r.errors = append(r.errors, fmt.Sprint(args...))
}
func (r *recorder) Logf(format string, args ...any) {
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}
func (r *recorder) Skipf(format string, args ...any) { r.skipped = fmt.Sprintf(format, args...) }
func (r *recorder) Failed() bool                     { return r.failed }

func TestTracker(t *testing.T) {
	open := Open{"G1": "expand lost", "G2": "isolation"}
	for _, tc := range []struct {
		name        string
		failures    []string // finding ids, "" for a plain failure
		wantErrors  int
		wantSkipFor []string
	}{
		{"nothing failed", nil, 0, nil},
		{"an open finding only", []string{"G1", "G1"}, 0, []string{"G1 (expand lost)"}},
		{"two open findings", []string{"G2", "G1"}, 0, []string{"G1 (expand lost)", "G2 (isolation)"}},
		{"a closed finding fails", []string{"G9"}, 1, nil},
		{"a plain failure", []string{""}, 1, nil},
		{"an open finding and a plain failure", []string{"G1", ""}, 1, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{}
			tr := New(r, open)
			for _, id := range tc.failures {
				tr.Errorf(id, "check %s", id)
			}
			tr.Finish()
			if len(r.errors) != tc.wantErrors {
				t.Errorf("errors %q, want %d", r.errors, tc.wantErrors)
			}
			if tc.wantSkipFor == nil {
				if r.skipped != "" {
					t.Errorf("skipped (%s), want no skip", r.skipped)
				}
				return
			}
			for _, s := range tc.wantSkipFor {
				if !strings.Contains(r.skipped, s) {
					t.Errorf("skip message %q does not name %s", r.skipped, s)
				}
			}
			if len(r.logs) != len(tc.failures) {
				t.Errorf("logged %q, want each open-finding failure logged", r.logs)
			}
		})
	}
}
