package entity

import (
	"testing"

	"github.com/notebridge/notebridge/limiter/shard"
)

// TestLoadOf: a shard is starved (and asks for a larger lease before its
// refresh) only when queued work does not fit its lease; work that fits
// leaves it busy, so it keeps its lease until the refresh.
func TestLoadOf(t *testing.T) {
	share := shard.Share{Units: []int{10, 100}, Concurrency: 10}
	use := func(minute, hour, inFlight int) shard.Share {
		return shard.Share{Units: []int{minute, hour}, Concurrency: inFlight}
	}
	tests := []struct {
		name           string
		used           shard.Share
		queued, parked int
		valid          bool
		want           shard.Load
	}{
		{"nothing at all: idle", use(0, 0, 0), 0, 0, true, shard.Idle},
		{"nothing and no lease: idle", use(0, 0, 0), 0, 0, false, shard.Idle},
		{"units inside the hour only: busy", use(0, 3, 0), 0, 0, true, shard.Busy},
		{"units inside the hour only, on a lease that lets nothing through: idle", use(0, 3, 0), 0, 0, false, shard.Idle},
		{"in flight, nothing queued: busy", use(2, 2, 10), 0, 0, true, shard.Busy},
		{"queued work that fits the lease: busy", use(5, 5, 5), 5, 0, true, shard.Busy},
		{"queued, the concurrency used up: starved", use(5, 5, 10), 5, 0, true, shard.Starved},
		{"queued, the minute used up: starved", use(10, 10, 0), 1, 0, true, shard.Starved},
		{"queued, the hour used up: starved", use(0, 100, 0), 1, 0, true, shard.Starved},
		{"queued, no valid lease: starved", use(0, 0, 0), 1, 0, false, shard.Starved},
		{"parked above the lease: starved", use(0, 0, 0), 0, 1, true, shard.Starved},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := loadOf(share, tt.used, tt.queued, tt.parked, tt.valid); got != tt.want {
				t.Errorf("loadOf = %v, want %v", got, tt.want)
			}
		})
	}
}
