package sim

import (
	"math/rand/v2"
	"time"
)

// UserWork is one user's background migration: for each page, the number
// of resources (images, attachments) it has. A page costs one content
// request plus one request per resource.
type UserWork struct {
	User  string
	Pages []int
	// Start is when the user's migration begins (0: at once).
	Start time.Duration
}

// Requests is the number of Graph requests the migration needs.
func (w UserWork) Requests() int {
	n := 0
	for _, r := range w.Pages {
		n += 1 + r
	}
	return n
}

// Scan is a foreground scan: Requests sequential requests a person waits
// for, arriving at At and then every Every until Until or the run ends
// (Every 0: once; Until 0: no end but the run's).
type Scan struct {
	User     string
	At       time.Duration
	Every    time.Duration
	Until    time.Duration
	Requests int
}

// Workload is what a scenario asks of a policy.
type Workload struct {
	Users []UserWork
	Scans []Scan
	// Workers is the number of pages each user works on at once (the
	// naive policies' parallel workers; the same for ours).
	Workers int
}

// Pages returns n pages with a seeded number of resources each, uniform
// in [0, 2*mean], so that a page costs about 1+mean requests.
func Pages(n, mean int, seed uint64) []int {
	rng := rand.New(rand.NewPCG(seed, 0xface))
	out := make([]int, n)
	for i := range out {
		out[i] = rng.IntN(2*mean + 1)
	}
	return out
}
