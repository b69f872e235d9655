package limiter

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
)

// script drives a limiter with a seeded mix of enqueues, grants and
// releases (including throttles and errors) and returns what it granted.
type script struct {
	rng    *rand.Rand
	leases []string
	n      int
}

func (s *script) step(l *Limiter, now time.Time) []Grant {
	for range s.rng.IntN(4) {
		s.n++
		lane := Background
		if s.rng.IntN(5) == 0 {
			lane = Foreground
		}
		l.Enqueue(Request{
			ID: fmt.Sprintf("q%d", s.n), User: fmt.Sprintf("u%d", s.rng.IntN(7)),
			Lane: lane, Cost: 1 + s.rng.IntN(2), Attempt: s.rng.IntN(3) / 2,
		}, now)
	}
	if s.rng.IntN(10) == 0 {
		l.Cancel(fmt.Sprintf("q%d", s.rng.IntN(s.n+1)))
	}
	gs := l.Grant(now)
	for _, g := range gs {
		s.leases = append(s.leases, g.LeaseID)
	}
	for len(s.leases) > 0 && s.rng.IntN(3) > 0 {
		i := s.rng.IntN(len(s.leases))
		o := ok200
		switch s.rng.IntN(20) {
		case 0:
			o = Outcome{Status: 429}
		case 1:
			o = Outcome{Status: 503}
		case 2:
			o = Outcome{Status: 429, Code: CodeConcurrency}
		case 3:
			o = Outcome{Status: 200, ThrottlePercent: 0.95}
		}
		l.Release(s.leases[i], o, now)
		s.leases = append(s.leases[:i], s.leases[i+1:]...)
	}
	return gs
}

func TestJSONRoundTripDecidesTheSame(t *testing.T) {
	spec, _ := Profile("onenote-x60")
	a := mustNew(t, spec)
	sa := &script{rng: rand.New(rand.NewPCG(1, 2))}
	now := t0
	for range 300 {
		now = now.Add(time.Duration(sa.rng.IntN(500)) * time.Millisecond)
		sa.step(a, now)
	}
	b1, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	var b Limiter
	if err := json.Unmarshal(b1, &b); err != nil {
		t.Fatal(err)
	}
	b2, _ := json.Marshal(&b)
	if string(b1) != string(b2) {
		t.Fatal("state changed across a round trip")
	}
	// Same script continued on both: identical grants, snapshots, wakeups.
	sa.rng = rand.New(rand.NewPCG(3, 4))
	sb := &script{rng: rand.New(rand.NewPCG(3, 4)), leases: append([]string(nil), sa.leases...), n: sa.n}
	clock := rand.New(rand.NewPCG(5, 6))
	grants := 0
	for i := range 500 {
		now = now.Add(time.Duration(clock.IntN(500)) * time.Millisecond)
		ga, gb := sa.step(a, now), sb.step(&b, now)
		if !reflect.DeepEqual(ga, gb) {
			t.Fatalf("step %d: grants differ:\n%v\n%v", i, ga, gb)
		}
		grants += len(ga)
		if wa, wb := a.NextWakeup(now), b.NextWakeup(now); !wa.Equal(wb) {
			t.Fatalf("step %d: NextWakeup %v vs %v", i, wa, wb)
		}
	}
	if grants == 0 {
		t.Fatal("script granted nothing")
	}
	if !reflect.DeepEqual(a.State(now), b.State(now)) {
		t.Fatal("snapshots differ")
	}
}

func TestStateSizeFor1000Users(t *testing.T) {
	// An hour of OneNote traffic from 1,000 users, each with work queued:
	// the app budget caps the log, so the state stays small.
	l := mustNew(t, OneNote())
	n := 0
	for m := range 60 {
		now := at(time.Duration(m) * time.Minute)
		for u := range 1000 {
			n++
			l.Enqueue(Request{ID: fmt.Sprintf("r%d", n), User: fmt.Sprintf("user-%04d", u), Lane: Background}, now)
		}
		releaseAll(l, ok200, now)
		for _, g := range l.Grant(now) {
			l.Release(g.LeaseID, ok200, now)
		}
	}
	// Queued requests dominate (60,000 here); a 1,000-user state with one
	// queued request each is what the entity should carry.
	for u := range 1000 {
		for _, q := range l.users[fmt.Sprintf("user-%04d", u)].Queue[Background][1:] {
			l.Cancel(q.ID)
		}
	}
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("state: %d users, %d bytes (%d per user)", len(l.st.Users), len(b), len(b)/1000)
	if len(b) > 512<<10 {
		t.Fatalf("state is %d bytes, want under 512 KiB", len(b))
	}
}

func TestRollingLogJSON(t *testing.T) {
	base := at(0).UnixNano()
	cases := []struct {
		name    string
		entries []stamp
	}{
		{"empty", nil},
		{"one", []stamp{{base, 1}}},
		{"same instant and costs", []stamp{{base, 3}, {base, 1}, {base + 9e9, 40}, {base + 3600e9, 1}}},
		{"before 1970", []stamp{{-5, 2}, {7, 1}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := json.Marshal(rollingLog{entries: c.entries})
			if err != nil {
				t.Fatal(err)
			}
			var back rollingLog
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatalf("%s: %v", b, err)
			}
			if len(back.entries) != len(c.entries) || len(c.entries) > 0 && !reflect.DeepEqual(back.entries, c.entries) {
				t.Errorf("read back %v, want %v", back.entries, c.entries)
			}
		})
	}
	// A full hour of one user at its limit, a grant every 9 s: about 8
	// bytes an entry, against about 16 as decimal numbers.
	var full rollingLog
	for i := range 400 {
		full.entries = append(full.entries, stamp{base + int64(i)*9e9 + int64(i%7)*1e6, 1})
	}
	b, _ := json.Marshal(full)
	if len(b) > 8*400+16 {
		t.Errorf("a full user hour is %d bytes, want <= %d", len(b), 8*400+16)
	}
	// Forms that do not decode say so.
	for _, bad := range []string{`[1796205798000000000,1]`, `"!!"`, `"gA"`, `12`} {
		var g rollingLog
		err := json.Unmarshal([]byte(bad), &g)
		if err == nil || !strings.Contains(err.Error(), "rolling log") {
			t.Errorf("%s: error %v, want a rolling log error", bad, err)
		}
	}
}
