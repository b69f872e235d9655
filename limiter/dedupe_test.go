package limiter

import (
	"fmt"
	"testing"
	"time"
)

// TestRememberedIDsAreBounded: with limits raised, many thousands of
// requests finish within the dedupe TTL; the IDs kept (and carried in the
// state) stay bounded, and the most recent ones are still deduplicated.
func TestRememberedIDsAreBounded(t *testing.T) {
	s := noReserve(testSpec())
	s.User = ScopeSpec{Windows: []Window{{1_000_000, Duration(time.Minute)}}, Concurrency: 10}
	s.App = ScopeSpec{Windows: []Window{{1_000_000, Duration(time.Minute)}}, Concurrency: 10}
	l := mustNew(t, s)
	const n = 3 * MaxRemembered
	for i := range n {
		now := at(time.Duration(i) * time.Millisecond)
		id := fmt.Sprintf("r%d", i)
		if err := l.Enqueue(Request{ID: id, User: "u", Lane: Background}, now); err != nil {
			t.Fatal(err)
		}
		for _, g := range l.Grant(now) {
			l.Release(g.LeaseID, Outcome{Status: 200}, now)
		}
	}
	if got := len(l.st.Seen); got > MaxRemembered {
		t.Errorf("remembering %d IDs, want at most %d", got, MaxRemembered)
	}
	last := fmt.Sprintf("r%d", n-1)
	now := at(n * time.Millisecond)
	if err := l.Enqueue(Request{ID: last, User: "u", Lane: Background}, now); err != nil {
		t.Fatal(err)
	}
	if g := l.Grant(now); len(g) != 0 {
		t.Errorf("a just-finished request was granted again: %v", g)
	}
}
