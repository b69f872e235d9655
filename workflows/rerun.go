package workflows

import "time"

// The rule for running a page (or the link pass) again, in one place.
//
// A run of a page ends one of three ways. It is done. It fails on the
// page's own account: a typed error of the failure package that fails the
// page, skips it or stops the section (the page's content cannot be
// converted, Notion refuses it, Graph will not serve it); the same page
// gets the same answer, so it ends in that run and a retry-section is a
// person's decision. Or it is lost with its worker: the session failed
// (the worker was killed, crashed or stopped heartbeating, so its
// activities timed out or were cancelled) or the staged content is gone
// from the worker.
//
// A lost run is not the page's fault: workers die in deploys, on lost
// nodes, for a crash of another page. Counting three of them as the
// page's failure (the rule before) failed innocent pages whenever kills
// came faster than a page's run took, as in the cluster chaos run (a kill
// every 16 s, pages waiting a minute in the shared Notion pace). But a
// page that crashes its worker (out of memory on a huge printout) looks
// the same from the workflow, so lost runs cannot go on forever either.
// They are bounded by count and spaced in time:
//
//   - a page runs at most maxPageRuns times, every lost run counted
//     (the multiplier of the send bounds in options.go);
//   - a run lost before it staged anything (it waited for a permit: the
//     worker held nothing of it) runs again at once;
//   - a run lost after it staged the page's content runs again after
//     rerunBackoff: at once the first time (a lone loss is the common
//     case), then 15 s, 30 s, 1 min and 2 min from then on.
//
// So a page is given up for its lost workers only after maxPageRuns lost
// runs, and a page that kills its workers (each of those runs staged it)
// kills at most maxPageRuns of them, over at least 7m45s, the later ones
// two minutes apart, not in a burst.
const maxPageRuns = 8

// rerunBackoffs are the waits before the second, third, ... run of a page
// whose previous run was lost after it staged the page; the last one
// repeats.
var rerunBackoffs = [...]time.Duration{0, 15 * time.Second, 30 * time.Second, time.Minute, 2 * time.Minute}

// rerunAfterLoss decides, once run number run of a page was lost with its
// worker, whether the page runs again and how long it waits first; staged
// says whether the lost run had staged the page's content on the worker.
func rerunAfterLoss(run int, staged bool) (again bool, wait time.Duration) {
	if run >= maxPageRuns {
		return false, 0
	}
	if !staged {
		return true, 0
	}
	return true, rerunBackoffs[min(run, len(rerunBackoffs))-1]
}
