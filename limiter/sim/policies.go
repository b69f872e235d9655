package sim

import (
	"fmt"
	"time"

	"github.com/notebridge/notebridge/limiter"
)

// ours sends every request through the limiter model, as the limiter
// entity would: enqueue, wait for a grant, send, release with the
// outcome; a failed request is enqueued again as a retry and the limiter
// decides when it leaves. Every background request also tells the
// limiter how many requests its user still needs
// (limiter.Request.Remaining), as the migration's page workers do, so
// the limiter water-fills by remaining work.
//
// With maxMin set (the "max-min" policy), requests carry no remaining
// work and the limiter shares by usage alone: the policy before the
// migration reported it, kept for comparison.
type ours struct {
	maxMin  bool
	lim     *limiter.Limiter
	n       int
	waiting map[string]func(limiter.Grant)
	timer   time.Time // earliest pending wake-up
}

func (p *ours) name() string {
	if p.maxMin {
		return "max-min"
	}
	return "ours"
}

func (p *ours) start(r *run) error {
	lim, err := limiter.New(r.cfg.Spec, r.now)
	if err != nil {
		return fmt.Errorf("sim: %w", err)
	}
	p.lim = lim
	p.waiting = map[string]func(limiter.Grant){}
	return nil
}

func (p *ours) send(r *run, j *job, attempt int) {
	p.n++
	id := fmt.Sprintf("q%d", p.n)
	p.waiting[id] = func(g limiter.Grant) {
		r.sendUpstream(j, attempt, func(resp Response) {
			before := r.limits(p.lim, j.user)
			p.lim.Release(g.LeaseID, resp, r.now)
			r.traceRelease(p.lim, j.user, resp, before)
			if resp.Status == 200 {
				r.complete(j)
			} else {
				p.send(r, j, attempt+1)
			}
			p.pump(r)
		})
	}
	req := limiter.Request{ID: id, User: j.user, Lane: j.lane, Attempt: attempt}
	if q := r.users[j.user]; !p.maxMin && j.page && q != nil {
		req.Remaining = q.requestsLeft
	}
	if err := p.lim.Enqueue(req, r.now); err != nil {
		panic(err) // every request the workloads make is valid
	}
	p.pump(r)
}

// pump grants what may leave now and sets a timer for the next wake-up.
func (p *ours) pump(r *run) {
	for _, g := range p.lim.Grant(r.now) {
		back := p.waiting[g.RequestID]
		delete(p.waiting, g.RequestID)
		back(g)
	}
	w := p.lim.NextWakeup(r.now)
	if w.IsZero() {
		return
	}
	if !w.After(r.now) {
		w = r.now.Add(time.Millisecond) // never spin at one instant
	}
	if !p.timer.After(r.now) || w.Before(p.timer) {
		p.timer = w
		r.at(w, func() { p.pump(r) })
	}
}

// backoff is the Graph SDK's default: on 429, 503 or 504, retry the call
// after 3·2^(n-1) s plus up to 1 s of jitter, three times; then give the
// job back to the end of the queue.
type backoff struct{}

func (backoff) name() string     { return "backoff" }
func (backoff) start(*run) error { return nil }
func (b backoff) send(r *run, j *job, attempt int) {
	r.sendUpstream(j, attempt, func(resp Response) {
		switch {
		case resp.Status == 200:
			r.complete(j)
		case (resp.Status == 429 || resp.Status == 503 || resp.Status == 504) && attempt < 3:
			d := 3*time.Second<<attempt + time.Duration(r.rng.Int64N(int64(time.Second)))
			r.after(d, func() { b.send(r, j, attempt+1) })
		default:
			r.requeue(j, 0)
		}
	})
}

// queueRetry is the seed design: a throttled or failed message goes back
// to the queue, visible again after a fixed 30 s.
type queueRetry struct{}

func (queueRetry) name() string     { return "queue-retry" }
func (queueRetry) start(*run) error { return nil }
func (queueRetry) send(r *run, j *job, attempt int) {
	r.sendUpstream(j, attempt, func(resp Response) {
		if resp.Status == 200 {
			r.complete(j)
			return
		}
		r.requeue(j, 30*time.Second)
	})
}
