package failure

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"go.temporal.io/sdk/temporal"
)

func TestDecide(t *testing.T) {
	for _, tc := range []struct {
		typ  string
		want Decision
	}{
		{GraphThrottled, Retry},
		{GraphTransient, Retry},
		{GraphAuth, Retry},
		{NotionRetryable, Retry},
		{Staging, RunAgain},
		{GraphNotFound, SkipPage},
		{GraphPermission, FailPage},
		{GraphConfig, FailPage},
		{GraphOther, FailPage},
		{NotionInvalid, FailPage},
		{Convert, FailPage},
		{GraphProtected, SkipSection},
		{SectionProtected, SkipSection},
		{NotSignedIn, Stop},
		{GraphLibraryLimit, Stop},
		{NotionNotShared, Stop},
		{NotionAuth, Stop},
		{NotionBlockLimit, Stop},
		{Config, Fail},
		{InvalidInput, Fail},
		{Refused, Fail},
		{NotionNotReady, Fail},
		{"wrapError", FailPage},
	} {
		if got := Decide(tc.typ); got != tc.want {
			t.Errorf("Decide(%q) = %s, want %s", tc.typ, got, tc.want)
		}
	}
}

func TestEveryTypeHasADecisionOfItsOwn(t *testing.T) {
	seen := map[string]bool{}
	for _, typ := range Types() {
		if seen[typ] {
			t.Errorf("%q listed twice", typ)
		}
		seen[typ] = true
		if Decide(typ).String() == "unknown" {
			t.Errorf("%q has no decision", typ)
		}
	}
	for _, typ := range NotRetried() {
		if Retryable(typ) {
			t.Errorf("NotRetried lists %q, which is retried", typ)
		}
	}
	if n := len(NotRetried()); n != len(Types())-4 {
		t.Errorf("NotRetried has %d types, want all but the 4 retried", n)
	}
}

func TestOfFindsTheTypedCause(t *testing.T) {
	signIn := temporal.NewNonRetryableApplicationError("no sign-in", NotSignedIn, nil)
	// What a child workflow's failure looks like once it crossed the
	// boundary: generic wrappers around the typed cause.
	wrapped := temporal.NewApplicationErrorWithCause("listing: no sign-in", "wrapError", fmt.Errorf("listing: %w", signIn))
	stop := temporal.NewNonRetryableApplicationError("sign in, then start again", Config, signIn)
	for _, tc := range []struct {
		name     string
		err      error
		wantType string
		want     Decision
	}{
		{"nil", nil, "", 0},
		{"untyped", errors.New("boom"), "", 0},
		{"direct", signIn, NotSignedIn, Stop},
		{"under wrappers", wrapped, NotSignedIn, Stop},
		{"outermost known type wins", stop, Config, Fail},
	} {
		app, d := Of(tc.err)
		got := ""
		if app != nil {
			got = app.Type()
		}
		if got != tc.wantType || d != tc.want {
			t.Errorf("%s: Of = %q, %s; want %q, %s", tc.name, got, d, tc.wantType, tc.want)
		}
	}
	if app := Find(stop, NotSignedIn); app == nil || app.Message() != "no sign-in" {
		t.Errorf("Find(stop, NotSignedIn) = %v, want the cause", app)
	}
	if Find(wrapped, GraphProtected) != nil {
		t.Error("Find found a type the chain does not hold")
	}
	if !slices.Contains(NotRetried(), Staging) {
		t.Error("Staging must not be retried by an activity: the page runs again on a new session")
	}
}
