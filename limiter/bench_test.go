package limiter

import (
	"encoding/json"
	"fmt"
	"runtime"
	"testing"
	"time"
)

// BenchmarkAdmission measures one admission decision (Enqueue, Grant and
// Release of one request) with 1,000 users tracked under the OneNote
// table, requests arriving at the pace of the app's hourly budget so the
// windows stay full of history and nothing waits. Every request is
// background work: a foreground one would hold the app's reserve for a
// day (Tuning.ReserveIdle), background could then take 780 of the 800
// an hour, and the benchmark would measure a backlog growing by 20 users
// an hour for its first simulated day (BenchmarkAdmissionAllQueued
// measures a backlog). It reports the requests still queued at the end.
func BenchmarkAdmission(b *testing.B) {
	l, _ := New(OneNote(), t0)
	users := make([]string, 1000)
	now := t0
	for i := range users {
		users[i] = fmt.Sprintf("user-%04d", i)
		now = now.Add(4500 * time.Millisecond)
		l.Enqueue(Request{ID: "warm-" + users[i], User: users[i], Lane: Background}, now)
		for _, g := range l.Grant(now) {
			l.Release(g.LeaseID, ok200, now)
		}
	}
	ids := make([]string, b.N)
	for i := range ids {
		ids[i] = "b" + fmt.Sprint(i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu := processCPU()
	for i := range b.N {
		now = now.Add(4500 * time.Millisecond) // 800 an hour
		l.Enqueue(Request{ID: ids[i], User: users[i%len(users)], Lane: Background}, now)
		for _, g := range l.Grant(now) {
			l.Release(g.LeaseID, ok200, now)
		}
	}
	reportCPU(b, cpu)
	b.ReportMetric(float64(len(l.queued)), "queued")
}

// reportCPU reports the process CPU time per operation since cpu (GC
// included), which a busy shared machine does not inflate as it does
// wall time.
func reportCPU(b *testing.B, cpu time.Duration) {
	if c := processCPU(); c > 0 {
		b.ReportMetric(float64(c-cpu)/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkAdmissionAllQueued is the worst case for the fairness scan:
// all users (1,000, 2,000 and 10,000) have work queued in one lane and
// the app budget binds. Requests arrive at the pace the hourly budget frees units, so the
// backlog stays whole however long the benchmark runs: every grant picks
// from every user. It reports the requests still queued at the end.
func BenchmarkAdmissionAllQueued(b *testing.B) {
	for _, lane := range []Lane{Foreground, Background} {
		for _, users := range []int{1000, 2000, 10000} {
			b.Run(fmt.Sprintf("%s/users=%d", lane, users), func(b *testing.B) { benchAllQueued(b, allQueued{lane: lane, users: users}) })
		}
	}
}

// BenchmarkWakeupAllQueued is BenchmarkAdmissionAllQueued's background
// lane with a call of NextWakeup after each decision, as a limiter's
// owner asks it when to come back.
func BenchmarkWakeupAllQueued(b *testing.B) {
	for _, users := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("%s/users=%d", Background, users), func(b *testing.B) {
			benchAllQueued(b, allQueued{lane: Background, users: users, wakeup: true})
		})
	}
}

// BenchmarkRemainingAllQueued is BenchmarkAdmissionAllQueued's background
// lane with every request reporting the user's remaining work (100 to
// 1,099 requests, by user), as migrations do: every queued user is a
// candidate computeHolds weighs.
func BenchmarkRemainingAllQueued(b *testing.B) {
	for _, users := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("%s/users=%d", Background, users), func(b *testing.B) {
			benchAllQueued(b, allQueued{lane: Background, users: users, remaining: true})
		})
	}
}

// allQueued is one run of benchAllQueued.
type allQueued struct {
	lane      Lane
	users     int
	wakeup    bool // call NextWakeup after each decision
	remaining bool // report remaining work
}

func benchAllQueued(b *testing.B, c allQueued) {
	lane, users := c.lane, c.users
	left := func(u int) int {
		if c.remaining {
			return 100 + u%1000
		}
		return 0
	}
	l, _ := New(OneNote(), t0)
	names := make([]string, users)
	n := 0
	for u := range names {
		names[u] = fmt.Sprintf("user-%05d", u)
		for range 2 {
			n++
			l.Enqueue(Request{ID: fmt.Sprint("w", n), User: names[u], Lane: lane, Remaining: left(u)}, t0)
		}
	}
	ids := make([]string, b.N)
	for i := range ids {
		ids[i] = fmt.Sprint("b", i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu := processCPU()
	now := t0
	for i := range b.N {
		now = now.Add(4500 * time.Millisecond) // a unit frees every 4.5 s
		l.Enqueue(Request{ID: ids[i], User: names[i%users], Lane: lane, Remaining: left(i % users)}, now)
		for _, g := range l.Grant(now) {
			l.Release(g.LeaseID, ok200, now)
		}
		if c.wakeup {
			l.NextWakeup(now)
		}
	}
	reportCPU(b, cpu)
	b.ReportMetric(float64(len(l.queued)), "queued")
}

// BenchmarkMemoryPerUser reports the heap and the JSON state per tracked
// user after each of 1,000 users sent its share of an hour's app budget.
func BenchmarkMemoryPerUser(b *testing.B) {
	for range b.N {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		l, _ := New(OneNote(), t0)
		n := 0
		for m := range 60 {
			now := t0.Add(time.Duration(m) * time.Minute)
			for u := range 1000 {
				n++
				if len(l.users) < 1000 || (m*1000+u)%75 == 0 {
					l.Enqueue(Request{ID: fmt.Sprint("m", n), User: fmt.Sprintf("user-%04d", u)}, now)
				}
			}
			for _, g := range l.Grant(now) {
				l.Release(g.LeaseID, ok200, now)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&m1)
		js, _ := json.Marshal(l)
		users := float64(len(l.st.Users))
		b.ReportMetric(float64(m1.HeapAlloc-m0.HeapAlloc)/users, "heap-B/user")
		b.ReportMetric(float64(len(js))/users, "json-B/user")
		runtime.KeepAlive(l)
	}
}

// BenchmarkAdmissionScanning is BenchmarkAdmission with people scanning:
// one scan of three foreground units a minute, in turn from 20 of the
// 1,000 users, so the reserve follows the demand (about 200 of the app's
// 800 an hour), and background arriving at the pace the rest allows (one
// every 6 s). It measures a decision that weighs the foreground demand.
func BenchmarkAdmissionScanning(b *testing.B) {
	l, _ := New(OneNote(), t0)
	users := make([]string, 1000)
	for i := range users {
		users[i] = fmt.Sprintf("user-%04d", i)
	}
	ids := make([]string, b.N)
	for i := range ids {
		ids[i] = "b" + fmt.Sprint(i)
	}
	now := t0
	b.ReportAllocs()
	b.ResetTimer()
	cpu := processCPU()
	for i := range b.N {
		now = now.Add(6 * time.Second)
		if i%10 == 0 { // a scan a minute
			l.Enqueue(Request{ID: "s" + ids[i], User: users[(i/10)%20], Lane: Foreground, Cost: 3}, now)
		}
		l.Enqueue(Request{ID: ids[i], User: users[i%len(users)], Lane: Background}, now)
		for _, g := range l.Grant(now) {
			l.Release(g.LeaseID, ok200, now)
		}
	}
	reportCPU(b, cpu)
	b.ReportMetric(float64(len(l.queued)), "queued")
}

// BenchmarkEarlyRoom is the room held for a user held early (earlyRoom)
// computed afresh, as after each grant, with the app's hour full of 800
// grants spread evenly over it, so that its units leave all the time, and
// the user (80 of them) under its limit: the cost a decision adds while a
// user is held early. It reports the room held.
func BenchmarkEarlyRoom(b *testing.B) {
	l, _ := New(OneNote(), t0)
	now := t0
	for i := range 800 {
		now = t0.Add(time.Duration(i) * 4500 * time.Millisecond)
		user := fmt.Sprintf("user-%d", i%10)
		for _, g := range drainGrants(b, l, now, Request{ID: fmt.Sprint("r", i), User: user, Lane: Background, Remaining: 1000}) {
			l.Release(g.LeaseID, ok200, now)
		}
	}
	u := l.users["user-0"]
	n := l.clock(now)
	l.holds.users, l.holds.early = []*userState{u}, u
	b.ReportAllocs()
	b.ResetTimer()
	room := 0
	for range b.N {
		l.holds.pace = paceMemo{}
		room = l.heldRoom(n)[longest(l.appPers)]
	}
	b.ReportMetric(float64(room), "held")
}
