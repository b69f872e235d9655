package progress

import (
	"strings"
	"testing"
)

func TestFit(t *testing.T) {
	line := "[####......] 4/10 pages done, 0 failed, 6 left · ETA 3m · permit waits 2s (12 permits) · migrating"
	for _, tc := range []struct {
		name string
		line string
		cols int
		want string
	}{
		{"no terminal", line, 0, line},
		{"wide enough", line, 200, line},
		{"exactly one column spare", line, Columns(line) + 1, line},
		{"keeps the phase", line, 80, "[####......] 4/10 pages done, 0 failed, 6 left · ETA 3m · … · migrating"},
		{"drops the phase when it is too long", strings.Replace(line, "migrating", strings.Repeat("waiting ", 8), 1), 80,
			"[####......] 4/10 pages done, 0 failed, 6 left · ETA 3m · …"},
		{"keeps the first part and the phase", line, 64, "[####......] 4/10 pages done, 0 failed, 6 left · … · migrating"},
		{"first part cut", line, 20, "[####......] 4/10 …"},
		{"wide characters count twice", "ノート整理 · ETA 3m", 10, "ノート整…"},
		{"one column", line, 1, ""},
	} {
		got := Fit(tc.line, tc.cols)
		if got != tc.want {
			t.Errorf("%s: Fit(%d)\n got %q\nwant %q", tc.name, tc.cols, got, tc.want)
		}
		if tc.cols > 0 && Columns(got) >= tc.cols {
			t.Errorf("%s: %q takes %d columns, not fewer than %d", tc.name, got, Columns(got), tc.cols)
		}
		if strings.Contains(got, "\n") {
			t.Errorf("%s: a newline in %q", tc.name, got)
		}
	}
}
