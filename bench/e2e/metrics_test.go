package e2e

import (
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/notebridge/notebridge/limiter"
)

const s = time.Second

func ds(secs ...float64) []time.Duration {
	out := make([]time.Duration, len(secs))
	for i, x := range secs {
		out[i] = time.Duration(x * float64(s))
	}
	return out
}

func TestLongestGap(t *testing.T) {
	tests := []struct {
		name     string
		events   []time.Duration
		from, to time.Duration
		want     time.Duration
	}{
		{"no events: the whole span", nil, 0, 10 * s, 10 * s},
		{"before the first", ds(6, 7), 0, 8 * s, 6 * s},
		{"between two, unsorted", ds(9, 1, 2), 0, 10 * s, 7 * s},
		{"after the last", ds(1, 2), 0, 10 * s, 8 * s},
		{"events outside the span ignored", ds(-5, 4, 50), 0, 10 * s, 6 * s},
	}
	for _, tc := range tests {
		if got := LongestGap(tc.events, tc.from, tc.to); got != tc.want {
			t.Errorf("%s: LongestGap = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestJain(t *testing.T) {
	tests := []struct {
		xs   []float64
		want float64
	}{
		{[]float64{5, 5, 5, 5, 5}, 1},
		{[]float64{10, 0, 0, 0, 0}, 0.2},
		{[]float64{1, 2}, 0.9},
		{nil, 1},
	}
	for _, tc := range tests {
		if got := Jain(tc.xs); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("Jain(%v) = %g, want %g", tc.xs, got, tc.want)
		}
	}
}

func TestPercentile(t *testing.T) {
	xs := ds(5, 1, 4, 2, 3, 10, 9, 8, 7, 6)
	tests := []struct {
		p    float64
		want time.Duration
	}{{0.5, 5 * s}, {0.99, 10 * s}, {0.9, 9 * s}, {0, 1 * s}, {1, 10 * s}}
	for _, tc := range tests {
		if got := Percentile(xs, tc.p); got != tc.want {
			t.Errorf("Percentile(p=%g) = %v, want %v", tc.p, got, tc.want)
		}
	}
	if Percentile(nil, 0.5) != 0 {
		t.Error("Percentile of nothing is not 0")
	}
}

var hourly = []limiter.Window{{Limit: 3, Per: limiter.Duration(10 * s)}}

func TestBounds(t *testing.T) {
	// 3 per 10 s: 3 leave at once, then 3 at 10 s, 3 at 20 s.
	if got := LowerBound(hourly, 9); got != 20*s {
		t.Errorf("LowerBound = %v, want 20s", got)
	}
	if got := RateBound(hourly, 9); got != 30*s {
		t.Errorf("RateBound = %v, want 30s", got)
	}
	ws := []limiter.Window{{Limit: 120, Per: limiter.Duration(time.Minute)}, {Limit: 400, Per: limiter.Duration(time.Hour)}}
	if got := Binding(ws); got != ws[1] {
		t.Errorf("Binding = %v, want the hour window", got)
	}
}

func TestBudgetUse(t *testing.T) {
	acc := ds(0, 1, 2, 10, 11, 12, 25)
	// 6 in [0, 20) against 3 per 10 s: 6 of 6.
	if got := BudgetUse(acc, 0, 20*s, hourly[0]); got != 1 {
		t.Errorf("BudgetUse = %g, want 1", got)
	}
	if got := BudgetUse(acc, 20*s, 40*s, hourly[0]); math.Abs(got-1.0/6) > 1e-9 {
		t.Errorf("BudgetUse = %g, want 1/6", got)
	}
}

// instant makes spans that end as they start.
func instant(secs ...float64) []Span {
	var out []Span
	for _, d := range ds(secs...) {
		out = append(out, Span{d, d})
	}
	return out
}

func TestStalls(t *testing.T) {
	tests := []struct {
		name        string
		spans       []Span
		from, until time.Duration
		want        time.Duration
		wantAt      time.Duration
	}{
		{"waiting for a full window is no stall", instant(0, 0, 0, 10, 10, 10), 0, 20 * s, 0, 0},
		{"room and nothing sent is a stall", instant(0, 4, 5), 0, 20 * s, 4 * s, 0},
		{"the part after the window frees counts", instant(0, 1, 2, 13), 0, 20 * s, 3 * s, 10 * s},
		{"requests after until are ignored", instant(0, 0, 0, 40), 0, 20 * s, 0, 0},
		{"gaps before from are ignored", instant(0, 4, 5), 1 * s, 20 * s, 1 * s, 4 * s},
		{"a request in flight is no stall", []Span{{0, 3 * s}, {1 * s, 2 * s}, {4 * s, 4 * s}}, 0, 20 * s, 1 * s, 3 * s},
	}
	for _, tc := range tests {
		got, at := Stalls(tc.spans, hourly, tc.from, tc.until)
		if got != tc.want || at != tc.wantAt {
			t.Errorf("%s: Stalls = %v at %v, want %v at %v", tc.name, got, at, tc.want, tc.wantAt)
		}
	}
}

func TestPerBucketAndSeries(t *testing.T) {
	counts := PerBucket(ds(0, 0.5, 1, 2.9, 7, -1), s, 3)
	if want := []int{2, 1, 1}; !equalInts(counts, want) {
		t.Fatalf("PerBucket = %v, want %v", counts, want)
	}
	c := Cumulative("x", counts, 0.5)
	if c.Y[2] != 4 || c.X[2] != 1 {
		t.Fatalf("Cumulative = %+v, want 4 at x=1", c)
	}
	// The plot writer accepts every kind of series it is given.
	err := WritePNG(filepath.Join(t.TempDir(), "p.png"), []Panel{
		{Title: "log", LogY: true, Series: []Series{Steps("a", counts, 1), c}},
		{Title: "points", Series: []Series{{Name: "p", X: []float64{1, 2}, Y: []float64{3, 4}, Points: true}, {Name: "empty"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := WritePNG(filepath.Join(t.TempDir(), "bad.png"), []Panel{{Series: []Series{{X: []float64{1}}}}}); err == nil {
		t.Fatal("a series with 1 x and no y was accepted")
	}
}

func TestMarksDone(t *testing.T) {
	tests := []struct {
		body string
		want bool
	}{
		{`{"properties":{"Migration status":{"select":{"name":"done"}}}}`, true},
		{`{"properties":{"Migration status":{"select":{"name":"writing"}}}}`, false},
		{`{"properties":{"Title":{"select":{"name":"done"}}}}`, false},
		{`{"archived":true}`, false},
		{`not json`, false},
	}
	for _, tc := range tests {
		if got := marksDone([]byte(tc.body)); got != tc.want {
			t.Errorf("marksDone(%s) = %v, want %v", tc.body, got, tc.want)
		}
	}
}

func TestHourBursts(t *testing.T) {
	hour := 10 * s
	// Hour 0 is skipped; hour 1 spends 3 in 2 s; hour 2 has only 2.
	acc := ds(0, 1, 10.5, 11.5, 12.5, 21, 22)
	got := hourBursts(acc, hour, 3)
	if len(got) != 1 || got[0] != 2*s {
		t.Fatalf("hourBursts = %v, want [2s]", got)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
