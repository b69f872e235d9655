package limiter

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

var s0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

func offsets(ts []time.Time) []time.Duration {
	out := make([]time.Duration, len(ts))
	for i, t := range ts {
		out[i] = t.Sub(s0)
	}
	return out
}

func TestScheduleReserveExactSlots(t *testing.T) {
	spec := PaceSpec{Windows: []Window{{3, Duration(time.Second)}}}
	for _, tc := range []struct {
		name  string
		spec  PaceSpec
		calls []struct {
			n  int
			at time.Duration
		}
		want [][]time.Duration
	}{
		{"a burst, then the window", spec, []struct {
			n  int
			at time.Duration
		}{{3, 0}, {1, 0}, {2, ms(100)}},
			[][]time.Duration{{0, 0, 0}, {time.Second}, {time.Second, time.Second}}},
		{"skew and lead", PaceSpec{Windows: spec.Windows, Skew: Duration(ms(50)), Lead: Duration(ms(20))}, []struct {
			n  int
			at time.Duration
		}{{3, 0}, {1, ms(10)}},
			[][]time.Duration{{ms(20), ms(20), ms(20)}, {ms(1070)}}},
		{"the minute window holds the average", PaceSpec{Windows: []Window{{3, Duration(time.Second)}, {4, Duration(time.Minute)}}}, []struct {
			n  int
			at time.Duration
		}{{3, 0}, {3, ms(500)}},
			[][]time.Duration{{0, 0, 0}, {time.Second, time.Minute, time.Minute}}},
		{"a batch is capped at the smallest limit", spec, []struct {
			n  int
			at time.Duration
		}{{10, 0}}, [][]time.Duration{{0, 0, 0}}},
		{"an idle spell lets a burst go", spec, []struct {
			n  int
			at time.Duration
		}{{3, 0}, {3, ms(5000)}}, [][]time.Duration{{0, 0, 0}, {ms(5000), ms(5000), ms(5000)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewSchedule(tc.spec, s0)
			if err != nil {
				t.Fatal(err)
			}
			for i, c := range tc.calls {
				got, _ := s.Reserve(c.n, s0.Add(c.at))
				if !slices.Equal(offsets(got), tc.want[i]) {
					t.Errorf("call %d: slots %v, want %v", i, offsets(got), tc.want[i])
				}
			}
		})
	}
}

// TestScheduleNeverExceedsAWindow reserves at random times and checks the
// invariant over every slot handed out: no window, lengthened by the
// skew, ever holds more than its limit.
func TestScheduleNeverExceedsAWindow(t *testing.T) {
	for _, spec := range []PaceSpec{
		Notion(),
		{Windows: []Window{{3, Duration(time.Second)}}},
		{Windows: []Window{{5, Duration(time.Second)}, {12, Duration(5 * time.Second)}}, Skew: Duration(ms(10)), Lead: Duration(ms(5))},
	} {
		t.Run(spec.String(), func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			s, err := NewSchedule(spec, s0)
			if err != nil {
				t.Fatal(err)
			}
			now := s0
			var all []time.Time
			for range 400 {
				now = now.Add(time.Duration(r.IntN(400)) * time.Millisecond)
				if r.IntN(20) == 0 {
					s.Pause(now.Add(time.Duration(r.IntN(3000))*time.Millisecond), now)
				}
				got, _ := s.Reserve(1+r.IntN(4), now)
				for _, at := range got {
					if at.Before(now) {
						t.Fatalf("slot %s before now %s", at, now)
					}
				}
				all = append(all, got...)
			}
			if !slices.IsSortedFunc(all, func(a, b time.Time) int { return a.Compare(b) }) {
				t.Fatal("slots out of order")
			}
			for _, w := range spec.Windows {
				per := w.Per.D() + spec.Skew.D()
				for i := range all {
					n := 0
					for j := i; j < len(all) && all[j].Sub(all[i]) < per; j++ {
						n++
					}
					if n > w.Limit {
						t.Fatalf("%d slots within %s from %s; the limit is %d", n, per, all[i].Sub(s0), w.Limit)
					}
				}
			}
		})
	}
}

func TestSchedulePauseHoldsSlotsAndRevokesTentativeOnes(t *testing.T) {
	spec := PaceSpec{Windows: []Window{{2, Duration(time.Second)}}, Horizon: Duration(ms(300))}
	s, err := NewSchedule(spec, s0)
	if err != nil {
		t.Fatal(err)
	}
	// Two firm slots now, then two tentative ones a second later.
	got, firm := s.Reserve(2, s0)
	if firm != 2 || !slices.Equal(offsets(got), []time.Duration{0, 0}) {
		t.Fatalf("first reservation %v (%d firm)", offsets(got), firm)
	}
	tentative, firm := s.Reserve(2, s0)
	if firm != 0 || !slices.Equal(offsets(tentative), []time.Duration{time.Second, time.Second}) {
		t.Fatalf("second reservation %v (%d firm), want two tentative slots at 1s", offsets(tentative), firm)
	}
	p := s.Pause(s0.Add(3*time.Second), s0.Add(ms(100)))
	if !p.Pending.IsZero() {
		t.Errorf("pending %s: the firm slots in hand were all before the pause", p.Pending.Sub(s0))
	}
	if s.Confirm(tentative[0], s0.Add(ms(800))) {
		t.Error("a tentative slot inside the pause was confirmed")
	}
	// After the pause: one slot per interval (1 s / 2), not a burst.
	after, _ := s.Reserve(2, s0.Add(ms(900)))
	want := []time.Duration{3 * time.Second, 3*time.Second + ms(500)}
	if !slices.Equal(offsets(after), want) {
		t.Errorf("slots after the pause %v, want %v", offsets(after), want)
	}
	if !s.Confirm(s0.Add(4*time.Second), s0.Add(ms(900))) {
		t.Error("a slot after the pause was revoked")
	}
	snap := s.Snapshot(s0.Add(ms(900)))
	if !snap.PausedUntil.Equal(s0.Add(3*time.Second)) || len(snap.Pauses) != 1 || snap.Ahead != 4 {
		t.Errorf("snapshot %+v", snap)
	}
}

func TestScheduleStateRoundTrips(t *testing.T) {
	run := func(s *Schedule, from int) []time.Duration {
		var out []time.Duration
		for i := from; i < from+20; i++ {
			got, _ := s.Reserve(1+i%3, s0.Add(time.Duration(i)*ms(150)))
			out = append(out, offsets(got)...)
		}
		return out
	}
	a, _ := NewSchedule(Notion(), s0)
	run(a, 0)
	a.Pause(s0.Add(4*time.Second), s0.Add(3*time.Second))
	b := new(Schedule)
	raw, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, b); err != nil {
		t.Fatal(err)
	}
	if x, y := run(a, 20), run(b, 20); !slices.Equal(x, y) {
		t.Errorf("a restored schedule decides differently:\n%v\n%v", x, y)
	}
	if err := new(Schedule).UnmarshalJSON([]byte(`{"spec":{"windows":[]}}`)); err == nil {
		t.Error("a state without windows was accepted")
	}
}

func TestPaceSpecs(t *testing.T) {
	ws, err := ParsePaceWindows("3/1s, 180/1m")
	if err != nil || len(ws) != 2 || ws[1] != (Window{180, Duration(time.Minute)}) {
		t.Errorf("ParsePaceWindows: %v, %v", ws, err)
	}
	for _, bad := range []string{"", "3", "x/1s", "3/soon", "3/1s,"} {
		if _, err := ParsePaceWindows(bad); err == nil || !strings.Contains(err.Error(), "e.g. 3/1s") {
			t.Errorf("ParsePaceWindows(%q): %v", bad, err)
		}
	}
	for _, tc := range []struct {
		rate float64
		want string
	}{{3, "3/1s,180/1m0s"}, {2.5, "3/1s,150/1m0s"}, {0.25, "1/4s,15/1m0s"}, {100, "100/1s,6000/1m0s"}} {
		s, err := NotionAt(tc.rate)
		if err != nil || s.String() != tc.want {
			t.Errorf("NotionAt(%g) = %s, %v; want %s", tc.rate, s, err, tc.want)
		}
	}
	for _, bad := range []float64{0, -3} {
		if _, err := NotionAt(bad); err == nil {
			t.Errorf("NotionAt(%g) accepted", bad)
		}
	}
	if err := (PaceSpec{Windows: []Window{{3, 0}}}).Validate(); err == nil {
		t.Error("a zero-length window was accepted")
	}
}
