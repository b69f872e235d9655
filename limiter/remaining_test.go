package limiter

import (
	"errors"
	"testing"
	"time"
)

// TestRemainingWork checks the background order when users report their
// remaining work: the user with the most left goes first as far as its own
// windows allow, users with as much left take turns, and users who report
// nothing are served max-min.
func TestRemainingWork(t *testing.T) {
	// User 3 per 10 s, app 4 per 10 s, concurrency no cap: four grants at
	// once, of which one user may take three.
	tests := []struct {
		name       string
		leftA      int
		leftB      int
		wantA      int
		wantB      int
		grantedTop string
	}{
		{"more left goes first, up to its own window", 100, 10, 3, 1, "a"},
		{"the other way round", 10, 100, 1, 3, "b"},
		{"equal work left takes turns", 50, 50, 2, 2, "a"},
		{"nothing reported: max-min", 0, 0, 2, 2, "a"},
		{"a report counts against none", 0, 5, 1, 3, "b"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := mustNew(t, rateBound())
			var s seq
			var reqs []Request
			for range 4 {
				ra, rb := s.req("a", Background, 1), s.req("b", Background, 1)
				ra.Remaining, rb.Remaining = tc.leftA, tc.leftB
				reqs = append(reqs, ra, rb)
			}
			for _, r := range reqs {
				if err := l.Enqueue(r, at(0)); err != nil {
					t.Fatal(err)
				}
			}
			gs := l.Grant(at(0))
			got := map[string]int{}
			for _, g := range gs {
				got[g.User]++
			}
			if got["a"] != tc.wantA || got["b"] != tc.wantB {
				t.Errorf("granted a %d, b %d; want a %d, b %d", got["a"], got["b"], tc.wantA, tc.wantB)
			}
			if len(gs) == 0 || gs[0].User != tc.grantedTop {
				t.Errorf("first grant %v, want user %s", gs, tc.grantedTop)
			}
		})
	}
}

// TestRemainingWorkDecreasesWithGrants checks that a report stands less
// what is granted after it: a user ahead by two loses the lead after two
// grants.
func TestRemainingWorkDecreasesWithGrants(t *testing.T) {
	sp := rateBound()
	sp.User.Windows = []Window{{100, Duration(10 * time.Second)}}
	sp.App.Windows = []Window{{4, Duration(10 * time.Second)}}
	l := mustNew(t, sp)
	var s seq
	for range 4 {
		ra, rb := s.req("a", Background, 1), s.req("b", Background, 1)
		ra.Remaining, rb.Remaining = 12, 10
		for _, r := range []Request{ra, rb} {
			if err := l.Enqueue(r, at(0)); err != nil {
				t.Fatal(err)
			}
		}
	}
	var order string
	for _, g := range l.Grant(at(0)) {
		order += g.User
	}
	// a 12, b 10: a (11), a (10), tie and a used more: b (9), a.
	if order != "aaba" {
		t.Errorf("grant order %q, want aaba", order)
	}
}

func TestRemainingWorkRefusesNegative(t *testing.T) {
	l := mustNew(t, noReserve(testSpec()))
	err := l.Enqueue(Request{ID: "r", User: "a", Lane: Background, Remaining: -1}, at(0))
	if !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("Enqueue with negative remaining work: %v, want ErrInvalidRequest", err)
	}
}
