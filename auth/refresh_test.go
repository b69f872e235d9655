package auth

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/notebridge/notebridge/emulator/graph"
)

// TestKilledDuringRefresh: a worker dies after the identity platform has
// answered a refresh and before the token file was written (the answer
// never reaches it, and a write may be left half done). On Microsoft's
// behaviour the restarted worker signs in with the old refresh token,
// which is still valid; only with strict rotation is the sign-in lost,
// and then the error names the login command.
func TestKilledDuringRefresh(t *testing.T) {
	cases := []struct {
		name        string
		strict      bool
		halfWritten bool // a temporary file of the interrupted write is left
		lost        bool
	}{
		{name: "Microsoft: answer lost", lost: false},
		{name: "Microsoft: answer lost, write interrupted", halfWritten: true, lost: false},
		{name: "strict rotation: answer lost", strict: true, lost: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEmulatorWith(t, graph.Config{StrictRefreshRotation: tc.strict})
			s := e.newStore(t, nil)
			e.login(t, s, "alice")
			before := stored(t, s, "alice")
			e.clock.Advance(testTokenTTL)

			e.dropAnswers.Store(1)
			if _, err := s.TokenSource("alice").Token(context.Background()); err == nil || errors.Is(err, ErrSignInExpired) {
				t.Fatalf("Token with the answer lost = %v, want a transport error", err)
			}
			if got := stored(t, s, "alice"); got.RefreshToken != before.RefreshToken {
				t.Fatal("the token file changed without an answer")
			}
			stale := filepath.Join(s.files.dir, ".alice"+tokenFileSuffix+".4242.tmp")
			if tc.halfWritten {
				if err := os.WriteFile(stale, []byte("NBT1 half"), 0o600); err != nil {
					t.Fatal(err)
				}
			}

			// The restarted worker: a new Store on the same directory.
			restarted := e.newStoreIn(t, s.files.dir, testKey(t, 1), nil)
			tok, err := restarted.TokenSource("alice").Token(context.Background())
			if tc.lost {
				if !errors.Is(err, ErrSignInExpired) || !strings.Contains(err.Error(), `run "starter login --user alice"`) {
					t.Fatalf("Token after the kill = %v, want ErrSignInExpired naming the login command", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Token after the kill: %v", err)
			}
			if got := e.graphStatus(t, tok); got != http.StatusOK {
				t.Errorf("Graph with the token after the kill: %d", got)
			}
			if got := stored(t, restarted, "alice"); got.RefreshToken == before.RefreshToken || got.AccessToken != tok {
				t.Error("the new tokens were not stored")
			}
			if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the interrupted write's temporary file is still there: %v", err)
			}
			if st := e.srv.IdentityStats(); st.Reused != 1 {
				t.Errorf("identity stats %+v, want the old refresh token redeemed a second time", st)
			}
		})
	}
}

// TestRefreshMargin: the margin is the configured one, or a fifth of the
// token's lifetime when that is shorter.
func TestRefreshMargin(t *testing.T) {
	saved := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	cases := []struct {
		lifetime time.Duration
		limit    time.Duration
		want     time.Duration
	}{
		{45 * time.Second, DefaultRefreshMargin, 9 * time.Second},
		{10 * time.Minute, DefaultRefreshMargin, 2 * time.Minute},
		{25 * time.Minute, DefaultRefreshMargin, 5 * time.Minute},
		{time.Hour, DefaultRefreshMargin, 5 * time.Minute},
		{90 * time.Minute, DefaultRefreshMargin, 5 * time.Minute},
		{time.Hour, 30 * time.Second, 30 * time.Second},
		{0, DefaultRefreshMargin, DefaultRefreshMargin}, // no lifetime known
	}
	for _, c := range cases {
		tok := storedToken{AccessToken: "a", Expiry: saved.Add(c.lifetime), SavedAt: saved}
		if c.lifetime == 0 {
			tok.SavedAt = time.Time{}
		}
		if got := tok.refreshMargin(c.limit); got != c.want {
			t.Errorf("lifetime %s, limit %s: margin %s, want %s", c.lifetime, c.limit, got, c.want)
		}
	}
}

// TestShortTokensRefreshedOncePerLifetime calls Graph once a step with the
// token source's token, over ten lifetimes, and counts the refreshes: one
// per lifetime less its margin, not one per call.
func TestShortTokensRefreshedOncePerLifetime(t *testing.T) {
	cases := []struct {
		lifetime, step time.Duration
	}{
		{45 * time.Second, time.Second},
		{10 * time.Minute, 10 * time.Second},
		{time.Hour, time.Minute},
	}
	for _, c := range cases {
		t.Run(c.lifetime.String(), func(t *testing.T) {
			t.Parallel()
			e := newEmulatorWith(t, graph.Config{TokenTTL: c.lifetime})
			s := e.newStore(t, nil)
			e.login(t, s, "alice")
			ts := s.TokenSource("alice")
			calls := int(10 * c.lifetime / c.step)
			for i := range calls {
				tok, err := ts.Token(context.Background())
				if err != nil {
					t.Fatalf("call %d: %v", i, err)
				}
				if i%10 == 0 {
					if got := e.graphStatus(t, tok); got != http.StatusOK {
						t.Fatalf("call %d: Graph %d", i, got)
					}
				}
				e.clock.Advance(c.step)
			}
			margin := min(DefaultRefreshMargin, c.lifetime/refreshFraction)
			elapsed := time.Duration(calls) * c.step
			// Each token is used until its margin is reached.
			want := int64(elapsed / (c.lifetime - margin))
			got := e.refreshes.Load()
			t.Logf("%s tokens: %d refreshes for %d calls over %s (margin %s)", c.lifetime, got, calls, elapsed, margin)
			if got < want-1 || got > want+1 {
				t.Errorf("%d refreshes for %d calls over %s, want %d±1 (one per %s)", got, calls, elapsed, want, c.lifetime-margin)
			}
		})
	}
}

// TestInvalidGrantRetriedWithStoredToken: when Microsoft rejects the
// refresh token, the store reads its file again and tries once with a
// refresh token stored meanwhile (by a process its lock did not reach).
func TestInvalidGrantRetriedWithStoredToken(t *testing.T) {
	cases := []struct {
		name string
		// meanwhile runs while the store's refresh is on its way: it may
		// spend the refresh token the store sent and store another.
		meanwhile func(t *testing.T, e *emulator, s *Store)
		// wantErr is whether Token fails; wantRefreshes counts the
		// store's refresh requests.
		wantErr       bool
		wantRefreshes int64
	}{
		{name: "a fresh token was stored", wantRefreshes: 1, meanwhile: func(t *testing.T, e *emulator, s *Store) {
			fresh := redeemDirectly(t, e, stored(t, s, "alice").RefreshToken)
			writeBehindLock(t, s, fresh)
		}},
		{name: "a stale token was stored", wantRefreshes: 2, meanwhile: func(t *testing.T, e *emulator, s *Store) {
			fresh := redeemDirectly(t, e, stored(t, s, "alice").RefreshToken)
			fresh.Expiry = e.clock.Now() // its access token is no use: refresh with it
			writeBehindLock(t, s, fresh)
		}},
		{name: "nothing new was stored", wantErr: true, wantRefreshes: 1, meanwhile: func(t *testing.T, e *emulator, s *Store) {
			redeemDirectly(t, e, stored(t, s, "alice").RefreshToken) // spent, nothing stored
		}},
		{name: "the stored token is rejected too", wantErr: true, wantRefreshes: 2, meanwhile: func(t *testing.T, e *emulator, s *Store) {
			fresh := redeemDirectly(t, e, stored(t, s, "alice").RefreshToken)
			redeemDirectly(t, e, fresh.RefreshToken) // spent as well
			fresh.Expiry = e.clock.Now()
			writeBehindLock(t, s, fresh)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEmulatorWith(t, graph.Config{StrictRefreshRotation: true})
			s := e.newStore(t, nil)
			e.login(t, s, "alice")
			e.clock.Advance(testTokenTTL)
			var hookRefreshes int64
			hook := func() {
				n := e.refreshes.Load()
				tc.meanwhile(t, e, s)
				hookRefreshes = e.refreshes.Load() - n
			}
			e.beforeRefresh.Store(&hook)
			tok, err := s.TokenSource("alice").Token(context.Background())
			if tc.wantErr != (err != nil) {
				t.Fatalf("Token = %v, want an error: %v", err, tc.wantErr)
			}
			if got := e.refreshes.Load() - hookRefreshes; got != tc.wantRefreshes {
				t.Errorf("%d refresh requests by the store, want %d", got, tc.wantRefreshes)
			}
			if tc.wantErr {
				if !errors.Is(err, ErrSignInExpired) || !strings.Contains(err.Error(), "starter login --user alice") {
					t.Errorf("error %v, want ErrSignInExpired naming the login command", err)
				}
				return
			}
			if got := e.graphStatus(t, tok); got != http.StatusOK {
				t.Errorf("Graph with the token: %d", got)
			}
		})
	}
}

// writeBehindLock stores tok as another process would that does not see
// the store's lock (another host sharing the directory, a platform
// without flock).
func writeBehindLock(t *testing.T, s *Store, tok storedToken) {
	t.Helper()
	if err := s.files.write("alice", tok); err != nil {
		t.Fatal(err)
	}
}

// TestManyStoresShareOneSignIn runs several Stores (processes) on one
// token directory, each with several callers, over many lifetimes of
// 45-second tokens, against an identity platform that revokes a refresh
// token when it is redeemed: any two refreshes that spent the same
// refresh token, or a refresh whose result was not stored before another
// process read the file, would lose the sign-in.
func TestManyStoresShareOneSignIn(t *testing.T) {
	t.Parallel()
	const lifetime = 45 * time.Second
	e := newEmulatorWith(t, graph.Config{TokenTTL: lifetime, StrictRefreshRotation: true})
	first := e.newStore(t, nil)
	stores := []*Store{first}
	for range 3 {
		stores = append(stores, e.newStoreIn(t, first.files.dir, testKey(t, 1), nil))
	}
	e.login(t, first, "alice")
	const callers, calls, step = 4, 40, 250 * time.Millisecond
	var wg sync.WaitGroup
	errs := make(chan error, len(stores)*callers)
	for _, s := range stores {
		for range callers {
			wg.Go(func() {
				for range calls {
					if _, err := s.TokenSource("alice").Token(context.Background()); err != nil {
						errs <- err
						return
					}
					e.clock.Advance(step)
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("Token: %v", err)
	}
	tok, err := stores[3].TokenSource("alice").Token(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := e.graphStatus(t, tok); got != http.StatusOK {
		t.Errorf("Graph with the shared token: %d", got)
	}
	elapsed := time.Duration(len(stores)*callers*calls) * step
	most := int64(elapsed/(lifetime-lifetime/refreshFraction)) + 2
	got := e.refreshes.Load()
	t.Logf("%d stores x %d callers, %s of clock: %d refreshes", len(stores), callers, elapsed, got)
	if got == 0 || got > most {
		t.Errorf("%d refreshes over %s, want 1 to %d", got, elapsed, most)
	}
	if st := e.srv.IdentityStats(); len(st.Rejected) != 0 {
		t.Errorf("the identity platform rejected refreshes: %v", st.Rejected)
	}
}
