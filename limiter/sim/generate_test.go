package sim

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/notebridge/notebridge/limiter"
)

// TestHiddenLimitsInTheSpace checks, over many draws, that every limit
// hide and raise give upstream lies between 30% of the published one
// (rounded up) and the published one: the space the properties claim to
// cover, and no more.
func TestHiddenLimitsInTheSpace(t *testing.T) {
	pub := limiter.OneNote()
	check := func(t *testing.T, draw int, got limiter.Spec) {
		t.Helper()
		for s, sc := range []limiter.ScopeSpec{got.User, got.App} {
			ref := []limiter.ScopeSpec{pub.User, pub.App}[s]
			limits := map[string][2]int{"concurrency": {sc.Concurrency, ref.Concurrency}}
			for i, w := range sc.Windows {
				limits[time.Duration(w.Per).String()] = [2]int{w.Limit, ref.Windows[i].Limit}
			}
			for what, l := range limits {
				floor := int(math.Ceil(0.3 * float64(l[1])))
				if l[0] < floor || l[0] > l[1] {
					t.Errorf("draw %d: %s %s limit %d, want %d to %d (30%% to 100%% of published)",
						draw, []string{"user", "app"}[s], what, l[0], floor, l[1])
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for draw := range 20000 {
		hidden := hide(pub, rng, 0.3, 1)
		check(t, draw, hidden)
		check(t, draw, raise(hidden, pub, rng))
	}
}
