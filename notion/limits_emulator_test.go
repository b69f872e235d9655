package notion_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	emu "github.com/notebridge/notebridge/emulator/notion"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/notion/blocks"
)

// pacedClient is a Client of the emulator on pacers, with no retries of
// its own beyond attempts.
func (e *env) pacedClient(t *testing.T, pacers *notion.Pacers, attempts int) *notion.Client {
	t.Helper()
	c, err := notion.NewClient(notion.Config{BaseURL: e.baseURL(), Token: notion.StaticToken(e.token),
		HTTPClient: &http.Client{Transport: e.transport()}, Clock: e.clock, Pacers: pacers, Logger: quiet(),
		Retry: notion.RetryPolicy{MaxAttempts: attempts, BaseDelay: 200 * time.Millisecond, MaxDelay: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestRateLimitReasonIsRead: a 429 of the 2026 limits reaches the caller
// as an APIError naming the limit that answered and its Retry-After.
func TestRateLimitReasonIsRead(t *testing.T) {
	tests := []struct {
		name   string
		cfg    emu.Config
		reason string
		after  time.Duration
	}{
		{"connection window", emu.Config{Plan: emu.PlanFree, ConnectionBudget: 1, WorkspaceBudget: 100}, notion.RateLimitConnection, time.Minute},
		{"workspace window", emu.Config{Plan: emu.PlanFree, ConnectionBudget: 100, WorkspaceBudget: 1, WorkspaceWindow: 5 * time.Minute}, notion.RateLimitWorkspace, 5 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, tt.cfg)
			// The emulator's root page took no request; the first call
			// spends the budget of 1, the second is refused.
			c := e.pacedClient(t, notion.NewPacers(notion.PacerConfig{Rate: 1000, Burst: 10}, e.clock), 1)
			if _, err := c.EnsurePage(context.Background(), e.srv.RootPageID(), "A"); err == nil {
				_, err = c.EnsurePage(context.Background(), e.srv.RootPageID(), "B")
				var ae *notion.APIError
				if !errors.As(err, &ae) || !errors.Is(err, notion.ErrRateLimited) {
					t.Fatalf("second call: %v, want a rate-limited APIError", err)
				}
				if ae.RateLimitReason != tt.reason || ae.RetryAfter != tt.after {
					t.Errorf("reason %q, Retry-After %v; want %q, %v", ae.RateLimitReason, ae.RetryAfter, tt.reason, tt.after)
				}
			} else if !errors.Is(err, notion.ErrRateLimited) {
				t.Fatalf("first call: %v", err)
			}
		})
	}
}

// TestLongRetryAfterPausesEveryWorker: one worker is told to wait five
// minutes by the workspace limit; the other workers on the token (other
// Clients on the same Pacers) send nothing until then. With a Pacers of
// their own (the baseline), they send too early.
func TestLongRetryAfterPausesEveryWorker(t *testing.T) {
	for _, shared := range []bool{true, false} {
		t.Run(fmt.Sprintf("shared=%v", shared), func(t *testing.T) {
			e := newEnv(t, emu.Config{Plan: emu.PlanBusiness, ConnectionBudget: 100, WorkspaceBudget: 10, WorkspaceWindow: 5 * time.Minute})
			fast := notion.PacerConfig{Rate: 1000, Burst: 10}
			pacers := notion.NewPacers(fast, e.clock)
			first := e.pacedClient(t, pacers, 2)
			// Spend the workspace's 10 requests (a one-attempt client
			// stops at the first 429) ...
			start := e.clock.Now()
			spender := e.pacedClient(t, notion.NewPacers(fast, e.clock), 1)
			for i := 0; ; i++ {
				_, err := spender.EnsurePage(context.Background(), e.srv.RootPageID(), fmt.Sprint("p", i))
				if errors.Is(err, notion.ErrRateLimited) {
					break
				} else if err != nil {
					t.Fatal(err)
				}
			}
			// ... then the first worker, which did not see that 429, is
			// refused for the rest of the five minutes and waits them
			// out.
			e.clock.Set(e.srv.Requests(e.token)[0].Time.Add(time.Second))
			var seen []notion.Retry
			ctx := notion.WithRetryObserver(context.Background(), func(r notion.Retry) { seen = append(seen, r) })
			if _, err := first.EnsurePage(ctx, e.srv.RootPageID(), "after the pause"); err != nil {
				t.Fatal(err)
			}
			if len(seen) != 1 || seen[0].Reason != notion.RateLimitWorkspace {
				t.Fatalf("retries seen: %+v, want one workspace 429", seen)
			}
			if waited := e.clock.Now().Sub(start); waited < 5*time.Minute {
				t.Fatalf("the first worker resumed after %v, before the 5 min Retry-After", waited)
			}
			// Rewind: the other workers ask right after the 429, while the
			// pause holds (the clock is virtual; the emulator reads it).
			e.clock.Set(seen[0].At.Add(time.Second))
			others := pacers
			if !shared {
				others = notion.NewPacers(fast, e.clock)
			}
			second := e.pacedClient(t, others, 1)
			before := e.srv.Stats().Tokens[e.token].Early
			_, err := second.EnsurePage(context.Background(), e.srv.RootPageID(), "second worker")
			early := e.srv.Stats().Tokens[e.token].Early - before
			if shared {
				if err != nil || early != 0 {
					t.Errorf("shared pace: err %v, %d early requests; want none", err, early)
				}
				if got := e.clock.Now().Sub(seen[0].At); got < 5*time.Minute {
					t.Errorf("second worker sent %v after the 429, inside the pause", got)
				}
			} else if early == 0 {
				t.Errorf("separate paces: no request came early; the baseline proves nothing")
			}
		})
	}
}

// TestThreeWorkersStayWithinThe2026Windows writes pages from three
// workers on one token against an emulator with a 60 s connection budget
// and a tighter workspace budget over 5 min. Paced by PacerConfigWithin
// both windows, no request is refused; the baseline (the old 3 a second)
// is.
func TestThreeWorkersStayWithinThe2026Windows(t *testing.T) {
	conn := notion.Budget{Limit: 60, Per: time.Minute}
	ws := notion.Budget{Limit: 200, Per: 5 * time.Minute}
	tests := []struct {
		name    string
		pace    notion.PacerConfig
		limited bool
	}{
		{"paced within both windows", notion.PacerConfigWithin(1, conn, ws), false},
		{"baseline 3/s", notion.DefaultPacerConfig(), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, emu.Config{Plan: emu.PlanFree, ConnectionBudget: conn.Limit, WorkspaceBudget: ws.Limit, WorkspaceWindow: ws.Per})
			pacers := notion.NewPacers(tt.pace, e.clock)
			db := e.section(t, e.pacedClient(t, pacers, 8))
			skip := len(e.srv.Requests(e.token))
			var wg sync.WaitGroup
			errs := make(chan error, 3)
			for w := range 3 {
				c := e.pacedClient(t, pacers, 8)
				wg.Add(1)
				go func() {
					defer wg.Done()
					for p := range 30 {
						id := fmt.Sprintf("w%d-p%d", w, p)
						if _, err := c.WritePage(context.Background(), db, pageInput(id, []blocks.Block{{Type: blocks.Paragraph, RichText: rt(id)}}, nil)); err != nil {
							errs <- err
							return
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			recs := e.srv.Requests(e.token)[skip:]
			_, limited := achievedRate(recs)
			st := e.srv.Stats().Tokens[e.token]
			minute, five := emu.MaxInWindow(recs, time.Minute), emu.MaxInWindow(recs, 5*time.Minute)
			t.Logf("%s: %d requests from 3 workers, most in any 60 s %d (budget %d), in any 5 min %d (budget %d), %d answered 429, %d early",
				tt.name, len(recs), minute, conn.Limit, five, ws.Limit, limited, st.Early)
			if tt.limited {
				if limited == 0 {
					t.Errorf("the baseline was never refused; the test proves nothing")
				}
				return
			}
			// The pacer's send times keep both budgets over every interval;
			// arrivals may run over by the other workers' requests in
			// flight (a request whose slot came before the interval but
			// that arrived inside it). The emulator's fixed windows must
			// refuse none.
			if limited != 0 || st.Early != 0 || minute > conn.Limit+2 || five > ws.Limit+2 {
				t.Errorf("%d 429s, %d early; %d in a minute, %d in 5 min", limited, st.Early, minute, five)
			}
		})
	}
}

// TestWorkspaceFacts counts the members over pages of GET /v1/users and
// reads the upload cap of the plan.
func TestWorkspaceFacts(t *testing.T) {
	tests := []struct {
		cfg  emu.Config
		want notion.WorkspaceFacts
	}{
		{emu.Config{Plan: emu.PlanFree, Members: 3}, notion.WorkspaceFacts{Members: 3, MaxUploadBytes: emu.FreeMaxFileUploadBytes}},
		{emu.Config{Plan: emu.PlanEnterprise, Members: 230}, notion.WorkspaceFacts{Members: 230, MaxUploadBytes: emu.DefaultMaxFileUploadBytes}},
		{emu.Config{}, notion.WorkspaceFacts{Members: 1, MaxUploadBytes: emu.DefaultMaxFileUploadBytes}},
	}
	for _, tt := range tests {
		tt.cfg.ConnectionBudget, tt.cfg.WorkspaceBudget = 1000, 1000
		e := newEnv(t, tt.cfg)
		got, err := e.pacedClient(t, notion.NewPacers(notion.PacerConfig{Rate: 1000, Burst: 10}, e.clock), 2).WorkspaceFacts(context.Background())
		if err != nil || got != tt.want {
			t.Errorf("%s, %d members: %+v, %v; want %+v", tt.cfg.Plan, tt.cfg.Members, got, err, tt.want)
		}
	}
}
