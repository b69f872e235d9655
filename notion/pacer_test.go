package notion

import (
	"context"
	"testing"
	"time"
)

func TestPacerConfigWithinKeepsEveryBudget(t *testing.T) {
	tests := []struct {
		name    string
		burst   int
		budgets []Budget
		want    PacerConfig
	}{
		{"old 3/s", 1, []Budget{{3, time.Second}, {180, time.Minute}}, PacerConfig{Rate: 3, Burst: 1}},
		{"2026 connection window only", 3, []Budget{{180, time.Minute}}, PacerConfig{Rate: 178.0 / 60, Burst: 3}},
		{"workspace tighter than the connection", 1, []Budget{{60, time.Minute}, {200, 5 * time.Minute}}, PacerConfig{Rate: 200.0 / 300, Burst: 1}},
		{"burst lowered to the smallest limit", 50, []Budget{{10, time.Second}}, PacerConfig{Rate: 1, Burst: 10}},
		{"no budget", 5, nil, DefaultPacerConfig()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := PacerConfigWithin(tt.burst, tt.budgets...)
			if got.Burst != tt.want.Burst || got.Rate < tt.want.Rate*0.9999 || got.Rate > tt.want.Rate*1.0001 {
				t.Fatalf("PacerConfigWithin = %+v, want %+v", got, tt.want)
			}
			// Send as fast as the pacer lets, from a quiet start, and count
			// the most requests in any interval of each budget's length.
			clock := newFakeClock()
			p := newPacer(got, clock)
			var at []time.Time
			for range 700 {
				if err := p.Wait(context.Background()); err != nil {
					t.Fatal(err)
				}
				at = append(at, clock.Now())
			}
			for _, b := range tt.budgets {
				most, lo := 0, 0
				for hi := range at {
					for !at[hi].Before(at[lo].Add(b.Per)) {
						lo++
					}
					most = max(most, hi-lo+1)
				}
				if most > b.Limit {
					t.Errorf("%d requests in one interval of %v; the budget is %d", most, b.Per, b.Limit)
				}
			}
		})
	}
}
