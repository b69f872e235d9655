package onenote

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestPasswordProtectedSection: a password-protected section answers 403
// with code 20185, "Encrypted sections are not accessible."
// (graph-reality.md #13), on its page listing, its pages and their
// resources. Each is KindProtected: not retryable, not a plain permission
// error, and the hint says to unlock it and retry the section.
func TestPasswordProtectedSection(t *testing.T) {
	c, _, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		writeGraphError(w, http.StatusForbidden, "20185", "Encrypted sections are not accessible.")
	})
	ctx := context.Background()
	_, o1, e1 := c.ListPagesPage(ctx, PageCursor{SectionID: "s1"})
	_, o2, e2 := c.GetPageContent(ctx, "p1", ContentOptions{})
	_, o3, e3 := c.DownloadResource(ctx, "resources/r1/$value", io.Discard, 100)
	for i, tt := range []struct {
		obs Observation
		err error
	}{{o1, e1}, {o2, e2}, {o3, e3}} {
		var e *Error
		if !asError(tt.err, &e) || e.Kind != KindProtected || !errors.Is(tt.err, ErrProtected) || errors.Is(tt.err, ErrPermission) {
			t.Fatalf("call %d: %v, want KindProtected", i, tt.err)
		}
		if e.IsRetryable() || tt.obs.Status != 403 || tt.obs.Code != CodeEncryptedSection || tt.obs.Cost != 1 || tt.obs.Throttled() {
			t.Errorf("call %d: retryable %v, observation %+v", i, e.IsRetryable(), tt.obs)
		}
		if !strings.Contains(e.Hint, "unlock it in OneNote") || !strings.Contains(e.Hint, "retry the section") {
			t.Errorf("call %d: hint %q", i, e.Hint)
		}
	}
}
