package limiter

import (
	"testing"
	"time"
)

// TestPeersProof: a throttle without a scope is not blamed on a user
// whose windows are all under the counts other users recently took (one
// user table holds for every user). Traced in small-129: users' hours
// were hidden at 193, which other users had taken; a user at 173 of its
// hour (its own highest yet) and 119 of its minute (under the 120 it had
// taken) was refused by the app's hour, hidden at 615 and full. The
// user's hour was blamed and lowered to 172, the lowering was shared
// with every user, and the user idled 22 minutes. The counts are
// small-129's at 52m20s.
func TestPeersProof(t *testing.T) {
	now := at(52 * time.Minute).UnixNano()
	sec := int64(time.Second)
	tests := []struct {
		name string
		// peer is the other user's success: its counts (with the
		// request) and how long ago; nil: no other user.
		peer []int
		ago  int64
		// lowered, when set, is a lowering of the hour shared after the
		// peer's success, to that limit.
		lowered int
		want    ThrottleScope
	}{
		{name: "another user took 193 in its hour: the app", peer: []int{100, 193}, ago: 6 * 60 * sec, want: ScopeApp},
		{name: "no other user: the user", want: ScopeUser},
		{name: "another user took less: the user", peer: []int{100, 170}, ago: 6 * 60 * sec, want: ScopeUser},
		{name: "another user's proof is over two hours old: the user", peer: []int{100, 193}, ago: 2*3600*sec + sec, want: ScopeUser},
		{name: "a lowering of the hour shared since: the user", peer: []int{100, 193}, ago: 6 * 60 * sec, lowered: 172, want: ScopeUser},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := mustNew(t, OneNote())
			u, peer := l.user("u02"), l.user("u03")
			if tc.peer != nil {
				l.proveShared([]int{tc.peer[0] - 1, tc.peer[1] - 1}, 1, now-tc.ago)
			}
			if tc.lowered > 0 {
				l.userView(peer).lowerBusiest([]int{10, tc.lowered}, now-tc.ago+sec)
				l.shareLowering(peer, now-tc.ago+sec)
			}
			u.Scope.Limits[0] = adapted{Proven: 120, ProvenAt: now - 30*sec}
			u.Scope.Limits[1] = adapted{Proven: 172, ProvenAt: now - sec}
			l.st.App.Limits[0] = adapted{Proven: 239, ProvenAt: now - 60*sec}
			l.st.App.Limits[1] = adapted{Proven: 615, ProvenAt: now - sec}
			usr, app := l.userView(u), l.appView()
			usr.peers = l.userProof()
			if got, _ := l.throttleScope(ScopeUser, usr, app, []int{119, 173}, []int{119, 615}, now); got != tc.want {
				t.Errorf("blamed on %v, want %v", got, tc.want)
			}
		})
	}
}
