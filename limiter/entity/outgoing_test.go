package entity

import (
	"fmt"
	"testing"
)

// TestOutgoingGroupsByLimiter: what waits to be sent goes in one message
// per limiter, asks with the releases for the same limiter, and taking
// only the asks leaves the other limiters' releases waiting.
func TestOutgoingGroupsByLimiter(t *testing.T) {
	var o outgoing
	o.release("s1", Return{LeaseID: "L1"})
	o.ask("s2", Ask{RequestID: "a"})
	o.release("s2", Return{LeaseID: "L2"})
	o.ask("s2", Ask{RequestID: "b"})
	o.cancel("s3", "c")
	got := o.take(true)
	if len(got) != 2 || got[0].limiter != "s2" || got[1].limiter != "s3" {
		t.Fatalf("take(asks only) = %+v, want the messages to s2 and s3", got)
	}
	if m := got[0].msg; len(m.Acquire) != 2 || len(m.Release) != 1 || m.Release[0].LeaseID != "L2" {
		t.Errorf("the message to s2 = %+v, want both asks and its release", m)
	}
	if o.empty() {
		t.Fatal("after taking the asks, nothing waits; want s1's release")
	}
	rest := o.take(false)
	if len(rest) != 1 || rest[0].limiter != "s1" || !o.empty() {
		t.Errorf("take(all) = %+v, want s1's release and nothing left", rest)
	}
}

// TestShardWorkflowIDSpreadsUsers: one shard is the single entity's ID;
// several spread users over "shard-k-of-n" IDs.
func TestShardWorkflowIDSpreadsUsers(t *testing.T) {
	if got, want := ShardWorkflowID("graph-onenote", "app", "alice", 1), WorkflowID("graph-onenote", "app"); got != want {
		t.Errorf("one shard: %s, want %s", got, want)
	}
	ids := map[string]bool{}
	for i := range 100 {
		ids[ShardWorkflowID("graph-onenote", "app", fmt.Sprintf("user%d", i), 4)] = true
	}
	if len(ids) != 4 {
		t.Errorf("100 users over 4 shards used %d IDs: %v", len(ids), ids)
	}
	for id := range ids {
		if _, err := fmt.Sscanf(id, "limiter/graph-onenote/app/shard-%d-of-4", new(int)); err != nil {
			t.Errorf("shard ID %q: %v", id, err)
		}
	}
}
