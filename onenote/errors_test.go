package onenote

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

func TestErrorIsAsAndString(t *testing.T) {
	err := fmt.Errorf("activity: %w", &Error{Kind: KindThrottled, Op: "list pages", Status: 429, Code: "20166", Message: "too many", Hint: "wait"})
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindThrottled {
		t.Fatalf("errors.As failed: %v", err)
	}
	if !errors.Is(err, ErrThrottled) || errors.Is(err, ErrTransient) {
		t.Errorf("errors.Is with sentinels is wrong for %v", err)
	}
	if !IsRetryable(err) || KindOf(err) != KindThrottled {
		t.Errorf("IsRetryable/KindOf wrong")
	}
	want := "onenote: list pages: throttled: HTTP 429 code 20166: too many (wait)"
	if e.Error() != want {
		t.Errorf("Error() = %q, want %q", e.Error(), want)
	}
	if KindOf(errors.New("plain")) != KindUnknown || IsRetryable(errors.New("plain")) {
		t.Error("plain errors must be unknown and not retryable")
	}
	wrapped := &Error{Kind: KindCanceled, Err: context.Canceled}
	if !errors.Is(wrapped, context.Canceled) || wrapped.IsRetryable() {
		t.Error("canceled error must unwrap to context.Canceled and not be retryable")
	}
}

func TestKindStringAndRetryable(t *testing.T) {
	retryable := map[Kind]bool{KindThrottled: true, KindConcurrency: true, KindTransient: true, KindAuth: true}
	for k := KindUnknown; k <= KindProtected; k++ {
		if strings.HasPrefix(k.String(), "Kind(") {
			t.Errorf("kind %d has no name", int(k))
		}
		if k.Retryable() != retryable[k] {
			t.Errorf("%v.Retryable() = %v", k, k.Retryable())
		}
	}
	if Kind(99).String() != "Kind(99)" {
		t.Error("unknown kind name")
	}
}

// TestTokenNeverInErrors makes a server echo the bearer token back in
// every place an error could pick it up from, and checks no error string
// contains it.
func TestTokenNeverInErrors(t *testing.T) {
	echo := func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		w.Header().Set("x-ms-throttle-scope", auth)
		writeGraphError(w, http.StatusForbidden, "40004"+auth, "your token "+auth+" lacks Notes.Read")
	}
	c, _, _ := newTestClient(t, echo)
	ctx := context.Background()
	var errs []error
	_, _, err := c.ListNotebooks(ctx, "")
	errs = append(errs, err)
	_, _, err = c.GetPageContent(ctx, "p1", ContentOptions{})
	errs = append(errs, err)
	_, _, err = c.ListPagesPage(ctx, PageCursor{SectionID: "s1"})
	errs = append(errs, err)
	_, _, err = c.DownloadResource(ctx, "resources/r1/$value", new(strings.Builder), 10)
	errs = append(errs, err)
	// A token source error that contains the token.
	leaky, _ := New(Config{BaseURL: "http://127.0.0.1:1/v1.0", Tokens: TokenSourceFunc(func(context.Context) (string, error) {
		return testToken, errors.New("refresh failed for " + testToken)
	})})
	_, _, err = leaky.ListNotebooks(ctx, "")
	errs = append(errs, err)
	for i, err := range errs {
		if err == nil {
			t.Fatalf("call %d: expected an error", i)
		}
		if strings.Contains(err.Error(), testToken) || strings.Contains(fmt.Sprintf("%+v", err), testToken) {
			t.Errorf("call %d: error leaks the token: %v", i, err)
		}
	}
}

func TestScrubbedErrorKeepsChain(t *testing.T) {
	inner := fmt.Errorf("dial: token %s: %w", testToken, context.DeadlineExceeded)
	err := scrubErr(inner, testToken)
	if strings.Contains(err.Error(), testToken) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("scrubErr = %v", err)
	}
	if scrubErr(inner, "short") != inner {
		t.Error("tokens shorter than minScrubLen are not scrubbed")
	}
}
