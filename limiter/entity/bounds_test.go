package entity

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/shard"
)

const (
	boundUsers   = 10_000
	boundWorkers = 5
	// maxPayload is the target for any limiter payload (Temporal refuses
	// 2 MiB).
	maxPayload = 512 << 10
)

// bigSnapshot is a snapshot of boundUsers users, each with its page
// workers' requests queued or in flight.
func bigSnapshot() limiter.Snapshot {
	s := limiter.Snapshot{At: time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)}
	for u := range boundUsers {
		uu := limiter.UserUsage{User: fmt.Sprintf("user%05d@contoso.example", u), Queued: [2]int{0, u % boundWorkers}}
		uu.InFlight = boundWorkers - uu.Queued[1]
		uu.Breaker.State = limiter.Closed.String()
		s.Users = append(s.Users, uu)
		s.Queued[1] += uu.Queued[1]
		for k := range uu.InFlight {
			s.Leases = append(s.Leases, limiter.Grant{RequestID: fmt.Sprintf("%s/%d", uu.User, k), LeaseID: fmt.Sprintf("L%d-%d", u, k), User: uu.User, Cost: 1})
		}
	}
	return s
}

func TestDetailsAndStateQueryStayBoundedAt10000Users(t *testing.T) {
	snap := bigSnapshot()
	in := Input{Resource: "graph-onenote", App: "app"}
	d := Details(in, Stats{Runs: 1}, snap)
	if len(d) > 4<<10 {
		t.Errorf("details are %d bytes at %d users, want <= 4 KiB", len(d), boundUsers)
	}
	raw, err := json.Marshal(Bounded(State{Model: snap}))
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) > 128<<10 {
		t.Errorf("the state query answer is %d bytes at %d users, want <= 128 KiB", len(raw), boundUsers)
	}
	var back State
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if back.Users != boundUsers || len(back.Model.Users) != MaxStateUsers || len(back.Model.Leases) != MaxStateLeases {
		t.Errorf("state lists %d of %d users and %d of %d leases, want %d and %d", len(back.Model.Users), back.Users,
			len(back.Model.Leases), back.Leases, MaxStateUsers, MaxStateLeases)
	}
	// The busiest users are the ones listed (all of them have 5 queued
	// or in flight here, so ties go by name).
	if back.Model.Users[0].User != "user00000@contoso.example" {
		t.Errorf("first user listed %s", back.Model.Users[0].User)
	}
	seen := map[string]bool{}
	for off := 0; off < boundUsers; off += MaxStateUsers {
		p := Page(snap, off, 1000)
		if p.Total != boundUsers || len(p.Users) != MaxStateUsers {
			t.Fatalf("page at %d: %d users of %d", off, len(p.Users), p.Total)
		}
		for _, u := range p.Users {
			seen[u.User] = true
		}
	}
	if len(seen) != boundUsers {
		t.Errorf("paging saw %d users, want %d", len(seen), boundUsers)
	}
}

// TestShardsCarryBoundedStateAt10000Users fills the shards of 10,000
// users, each with its page workers' asks granted up to the user's
// concurrency (less the foreground's reserve), as the entity holds them, and checks each shard's
// continue-as-new input stays under the payload target.
func TestShardsCarryBoundedStateAt10000Users(t *testing.T) {
	const shards = 128
	now := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	spec := limiter.OneNote()
	spec.App = limiter.ScopeSpec{Windows: []limiter.Window{{Limit: 10_000_000, Per: limiter.Duration(time.Minute)}, {Limit: 10_000_000, Per: limiter.Duration(time.Hour)}}, Concurrency: 1_000_000}
	models := make([]*limiter.Limiter, shards)
	reqs := make([]map[string]Address, shards)
	for i := range models {
		m, err := limiter.New(padded(spec, 0), now)
		if err != nil {
			t.Fatal(err)
		}
		models[i], reqs[i] = m, map[string]Address{}
	}
	for u := range boundUsers {
		user := fmt.Sprintf("user%05d@contoso.example", u)
		k := shard.Of(user, shards)
		for w := range boundWorkers {
			id := fmt.Sprintf("0123456789abcdef0123456789abcdef/%d", u*boundWorkers+w)
			if err := models[k].Enqueue(limiter.Request{ID: id, User: user, Lane: limiter.Background}, now); err != nil {
				t.Fatal(err)
			}
			reqs[k][id] = Address{WorkflowID: fmt.Sprintf("migrate-section/%s/%d", user, w), RunID: "0123456789abcdef0123456789abcdef"}
		}
	}
	largest, granted := 0, 0
	for k, m := range models {
		granted += len(m.Grant(now))
		st, err := m.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		raw, err := json.Marshal(Input{Resource: "graph-onenote", App: "app", Spec: &spec, State: st, Requesters: reqs[k],
			Shard: &ShardConfig{Index: k, Count: shards}})
		if err != nil {
			t.Fatal(err)
		}
		largest = max(largest, len(raw))
	}
	if granted < 4*boundUsers {
		// The foreground's concurrency reserve keeps one of 5 slots.
		t.Errorf("granted %d, want at least 4 a user (%d)", granted, 4*boundUsers)
	}
	t.Logf("largest continue-as-new input of %d shards at %d users: %d KiB", shards, boundUsers, largest>>10)
	if largest >= maxPayload {
		t.Errorf("a shard's continue-as-new input is %d bytes, want < %d", largest, maxPayload)
	}
}

// TestShardPayloadBoundedAtFullRate runs the busiest of the shards that
// shard.Count chooses for 10,000 users at full rate for longer than the
// longest window plus the log's keep: every user has its page workers'
// asks queued all the time, every grant is released at once as a
// success, and the app budget never binds (the shard's lease is the
// whole OneNote app budget times the users, the worst case for its
// logs). Every user's log then holds its hour's limit. The shard's
// continue-as-new input must stay under the payload target.
func TestShardPayloadBoundedAtFullRate(t *testing.T) {
	shards := shard.Count(boundUsers)
	per := make([][]string, shards)
	for u := range boundUsers {
		user := fmt.Sprintf("user%05d@contoso.example", u)
		k := shard.Of(user, shards)
		per[k] = append(per[k], user)
	}
	busiest := 0
	for k := range per {
		if len(per[k]) > len(per[busiest]) {
			busiest = k
		}
	}
	users := per[busiest]
	now := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	spec := limiter.OneNote()
	spec.App = limiter.ScopeSpec{Windows: []limiter.Window{{Limit: 10_000_000, Per: limiter.Duration(time.Minute)}, {Limit: 10_000_000, Per: limiter.Duration(time.Hour)}}, Concurrency: 1_000_000}
	m, err := limiter.New(padded(spec, 0), now)
	if err != nil {
		t.Fatal(err)
	}
	reqs := map[string]Address{}
	stats := Stats{Granted: map[string]int{}, Units: map[string]int{}}
	queued := map[string]int{}
	seq := 0
	ask := func(user string, at time.Time) {
		for queued[user] < boundWorkers {
			seq++
			id := fmt.Sprintf("0123456789abcdef0123456789abcdef/%d", seq)
			if err := m.Enqueue(limiter.Request{ID: id, User: user, Lane: limiter.Background}, at); err != nil {
				t.Fatal(err)
			}
			reqs[id] = Address{WorkflowID: "migrate-section/" + user, RunID: "0123456789abcdef0123456789abcdef"}
			queued[user]++
		}
	}
	granted := 0
	end := now.Add(time.Hour + 10*time.Minute)
	for at := now; at.Before(end); at = at.Add(time.Second) {
		for _, u := range users {
			ask(u, at)
		}
		gs := m.Grant(at)
		for _, g := range gs {
			stats.Granted[g.User]++
			stats.Units[g.User] += g.Cost
		}
		granted += len(gs)
		// The next second's releases: each sent at once, a success.
		for _, g := range gs {
			if !m.Release(g.LeaseID, limiter.Outcome{Status: 200, Sent: at}, at.Add(time.Second)) {
				t.Fatalf("release of %s refused", g.LeaseID)
			}
			delete(reqs, g.RequestID)
			queued[g.User]--
		}
	}
	// The final state: every user's asks queued again, and some held.
	for _, u := range users {
		ask(u, end)
	}
	gs := m.Grant(end)
	st, err := m.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(Input{Resource: "graph-onenote", App: "app", Spec: &spec, State: st, Requesters: reqs,
		Stats: stats, Shard: &ShardConfig{Index: busiest, Count: shards}})
	if err != nil {
		t.Fatal(err)
	}
	// Full rate: each user gets its hour's limit in the first hour.
	if want := len(users) * spec.User.Windows[1].Limit; granted < want {
		t.Errorf("granted %d in the run, want at least %d (every user's hour)", granted, want)
	}
	t.Logf("%d shards for %d users; the busiest holds %d users; %d granted, %d held at the end; continue-as-new input %d KiB (state %d KiB)",
		shards, boundUsers, len(users), granted, len(gs), len(raw)>>10, len(st)>>10)
	if len(raw) >= maxPayload {
		t.Errorf("the busiest shard's continue-as-new input is %d bytes after an hour at full rate, want < %d", len(raw), maxPayload)
	}
}
