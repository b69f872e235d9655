package graph

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// BenchmarkServerPageContent measures page-content GETs per second over a
// real loopback TCP listener with parallel clients and limits raised out of
// the way: "hot" cycles through 100 pages (served from the render cache),
// "cold" through 2,000 pages (rendered on almost every request).
func BenchmarkServerPageContent(b *testing.B) {
	for _, bc := range []struct {
		name  string
		pages int
	}{{"hot", 100}, {"cold", 2000}} {
		b.Run(bc.name, func(b *testing.B) { benchmarkPageContent(b, bc.pages) })
	}
}

func benchmarkPageContent(b *testing.B, pages int) {
	srv := NewServer(Config{Seed: 1, Limits: UnlimitedLimits()})
	srv.AddNotebooks("alice", Generate(GenSpec{Seed: 1, Owner: "alice", Notebooks: 1, SectionsPerContainer: 2, PagesPerSection: pages / 2,
		SubpageLevels: 2, ImagesPerPage: 2, AttachmentsPerPage: 1, PrintoutEvery: 5, InkEvery: 4, LinksPerPage: 2})...)
	tok := srv.IssueToken("alice", []string{"Notes.Read"}, time.Hour)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	ids := srv.PageIDs("alice")
	client := &http.Client{Transport: &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256}}
	var next atomic.Uint64
	b.SetParallelism(8)
	b.ResetTimer()
	start, cpuStart := time.Now(), processCPU()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			id := ids[next.Add(1)%uint64(len(ids))]
			req, _ := http.NewRequest(http.MethodGet, ts.URL+"/v1.0/me/onenote/pages/"+id+"/content", nil)
			req.Header.Set("Authorization", "Bearer "+tok)
			resp, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
	// CPU per request (server and client together) shows the capacity of
	// an idle machine when other work competes for the cores.
	b.ReportMetric(float64((processCPU()-cpuStart).Microseconds())/float64(b.N), "cpu-µs/req")
}

// processCPU returns the user and system CPU time this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
