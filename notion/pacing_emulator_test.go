package notion_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"

	emu "github.com/notebridge/notebridge/emulator/notion"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/notion/blocks"
)

// TestRetryAfterIsHonoured paces the client far above the emulator's limit,
// so that it is throttled, and checks that no request arrived before a
// Retry-After had passed (the emulator flags those as early).
func TestRetryAfterIsHonoured(t *testing.T) {
	e := newEnv(t, emu.Config{Rate: 3, Burst: 10})
	c, err := notion.NewClient(notion.Config{BaseURL: e.baseURL(), HTTPClient: &http.Client{Transport: e.transport()},
		Token: notion.StaticToken(e.token), Clock: e.clock,
		Pacers: notion.NewPacers(notion.PacerConfig{Rate: 20, Burst: 5}, e.clock), Logger: quiet(),
		Retry: notion.RetryPolicy{MaxAttempts: 10}})
	if err != nil {
		t.Fatal(err)
	}
	db := e.section(t, c)
	bs, res := crashPage()
	if _, err := c.WritePage(context.Background(), db, pageInput("p", bs, res)); err != nil {
		t.Fatal(err)
	}
	st := e.srv.Stats().Tokens[e.token]
	t.Logf("%d requests, %d answered 429, %d early", st.Requests, st.RateLimited, st.Early)
	if st.RateLimited == 0 {
		t.Fatal("the emulator never throttled; the test proves nothing")
	}
	if st.Early != 0 {
		t.Errorf("%d requests arrived before Retry-After ended", st.Early)
	}
	checkOnePage(t, e, db, "p", bs, res)
}

// achievedRate is requests per second over the emulator's record of a
// token's requests.
func achievedRate(recs []emu.RequestRecord) (float64, int) {
	if len(recs) < 2 {
		return 0, len(recs)
	}
	limited := 0
	for _, r := range recs {
		if r.Status == http.StatusTooManyRequests {
			limited++
		}
	}
	span := recs[len(recs)-1].Time.Sub(recs[0].Time)
	return float64(len(recs)-1) / span.Seconds(), limited
}

// TestPacedWriteSustainsTheRateLimit writes a long page at Notion's
// 3 requests a second (virtual time) and measures the rate achieved.
func TestPacedWriteSustainsTheRateLimit(t *testing.T) {
	e := newEnv(t, emu.Config{Rate: 3, Burst: 10})
	c := e.client(t, nil) // paced at notion.DefaultPacerConfig: 3/s, burst 3
	db := e.section(t, c)
	bs, res := bigPage()
	skip := len(e.srv.Requests(e.token))
	if _, err := c.WritePage(context.Background(), db, pageInput("big", bs, res)); err != nil {
		t.Fatal(err)
	}
	recs := e.srv.Requests(e.token)[skip:]
	rate, limited := achievedRate(recs)
	t.Logf("virtual time: %d requests at %.3f req/s (%.1f%% of the 3 req/s limit), %d answered 429",
		len(recs), rate, 100*rate/3, limited)
	if rate < 0.95*3 || limited != 0 {
		t.Errorf("achieved %.3f req/s with %d 429s; want at least 2.85 req/s and none", rate, limited)
	}
}

// TestSharedPaceInRealTime runs three writers in parallel on one token,
// each with its own Client but one Pacers, against an emulator limited to
// 30 requests a second of real time.
func TestSharedPaceInRealTime(t *testing.T) {
	if testing.Short() {
		t.Skip("real time")
	}
	srv := emu.NewServer(emu.Config{Rate: 30, Burst: 10, Seed: 3})
	e := &env{srv: srv, token: srv.IssueToken()}
	e.http = newHTTPServer(t, srv)
	pacers := notion.NewPacers(notion.PacerConfig{Rate: 30, Burst: 3}, nil)
	mk := func() *notion.Client {
		c, err := notion.NewClient(notion.Config{BaseURL: e.http.URL, Token: notion.StaticToken(e.token), Pacers: pacers, Logger: quiet()})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	db := e.section(t, mk())
	skip := len(srv.Requests(e.token))
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func(c *notion.Client) {
			defer wg.Done()
			for p := 0; p < 10; p++ {
				id := fmt.Sprintf("w%d-p%d", w, p)
				if _, err := c.WritePage(context.Background(), db, pageInput(id, []blocks.Block{{Type: blocks.Paragraph, RichText: rt(id)}}, nil)); err != nil {
					errs <- err
					return
				}
			}
		}(mk())
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	recs := srv.Requests(e.token)[skip:]
	rate, limited := achievedRate(recs)
	t.Logf("real time: %d requests from 3 writers at %.2f req/s (%.1f%% of the 30 req/s limit), %d answered 429",
		len(recs), rate, 100*rate/30, limited)
	if limited != 0 {
		t.Errorf("%d requests were throttled", limited)
	}
	if rate > 30*1.1 {
		t.Errorf("%.2f req/s exceeds the pace", rate)
	}
}
