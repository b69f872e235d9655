package onenote

import (
	"strings"
	"testing"
	"time"
)

// The parsers see bytes straight from the network; they must never panic.

func FuzzParseThrottleScope(f *testing.F) {
	for _, s := range []string{
		"User", "Application", "Tenant_Application/ReadWrite/9a3d526c-b3c1-4479-ba74-197b5c5751ae/0785ef7c-2d7a-4542-b048-95bcab406e0b",
		"Tenant/Write/a/b", "Tenant_Application_All", "Partition_Application_All", "Tenant_Write", "", "/", "//////", "_All", "0.8",
	} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, scope, pct string) {
		ts := ParseThrottleScope(scope)
		if ts.Raw != scope {
			t.Fatalf("Raw = %q, want %q", ts.Raw, scope)
		}
		if ts.Kind < ScopeUnknown || ts.Kind > ScopeTenant {
			t.Fatalf("kind out of range: %v", ts.Kind)
		}
		_ = ts.Kind.String()
		if p := ParseThrottlePercentage(pct); p < 0 || p != p {
			t.Fatalf("percentage %q -> %v", pct, p)
		}
		if d, ok := ParseRetryAfter(pct, time.Now()); d < 0 || (!ok && d != 0) {
			t.Fatalf("Retry-After %q -> %v %v", pct, d, ok)
		}
	})
}

func FuzzParseErrorBody(f *testing.F) {
	for _, s := range []string{
		`{"error":{"code":"20166","message":"The app has issued too many requests"}}`,
		`{"error":{"code":20166,"message":"x"}}`, `{"error":{"code":"InvalidAuthenticationToken"}}`,
		`{"error":null}`, `{"error":{"code":1e400}}`, `<html>502</html>`, ``, `{"error":{"code":"1`,
	} {
		f.Add([]byte(s), 429)
	}
	f.Fuzz(func(t *testing.T, b []byte, status int) {
		eb, ok := ParseErrorBody(b)
		if !ok && (eb.Code != "" || eb.Message != "") {
			t.Fatalf("not ok but got %+v", eb)
		}
		for _, rc := range []requestClass{{}, {pageGET: true}} {
			k, _ := classify(status, eb.Code, rc)
			_ = k.String()
		}
		e := responseError("op", status, eb, "", requestClass{}, "secret-token-123")
		if strings.Contains(e.Error(), "secret-token-123") {
			t.Fatal("token leaked")
		}
	})
}

func FuzzParseMultipart(f *testing.F) {
	f.Add(`multipart/related; boundary="b-123"`, []byte(multipartBody("b-123")))
	f.Add("", []byte(multipartBody("Part_0")))
	f.Add("text/html", []byte(pageHTML))
	f.Add("multipart/mixed; boundary=", []byte("--\r\n\r\n--"))
	f.Add("", []byte("--b\r\nContent-Type: text/html\r\n\r\n<html>"))
	f.Fuzz(func(t *testing.T, ct string, body []byte) {
		html, _, _, err := ParseMultipart(ct, body)
		if err == nil && html == nil {
			t.Fatal("success without HTML")
		}
		_ = isMultipart(ct, body)
	})
}
