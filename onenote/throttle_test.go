package onenote

import (
	"io"
	"net/http"
	"testing"
	"time"
)

func TestParseThrottleScope(t *testing.T) {
	tests := []struct {
		in                      string
		kind                    ScopeKind
		scope, limit, appID, id string
	}{
		{"", ScopeUnknown, "", "", "", ""},
		{"User", ScopeUser, "User", "", "", ""},
		{"user", ScopeUser, "user", "", "", ""},
		{"Application", ScopeApp, "Application", "", "", ""},
		{" Application ", ScopeApp, "Application", "", "", ""},
		{"Tenant_Application/ReadWrite/9a3d526c-b3c1-4479-ba74-197b5c5751ae/0785ef7c-2d7a-4542-b048-95bcab406e0b",
			ScopeApp, "Tenant_Application", "ReadWrite", "9a3d526c-b3c1-4479-ba74-197b5c5751ae", "0785ef7c-2d7a-4542-b048-95bcab406e0b"},
		{"Tenant/Write/app/tenant", ScopeTenant, "Tenant", "Write", "app", "tenant"},
		{"Application/Read/app/tenant", ScopeApp, "Application", "Read", "app", "tenant"},
		{"User/Read/app/user-guid", ScopeUser, "User", "Read", "app", "user-guid"},
		{"Tenant_Application_All", ScopeApp, "Tenant_Application", "All", "", ""},
		{"Tenant_Application_Write", ScopeApp, "Tenant_Application", "Write", "", ""},
		{"Partition_Application_All", ScopeApp, "Partition_Application", "All", "", ""},
		{"Tenant_All", ScopeTenant, "Tenant", "All", "", ""},
		{"Tenant_Write", ScopeTenant, "Tenant", "Write", "", ""},
		{"Tenant_ReadWrite", ScopeTenant, "Tenant", "ReadWrite", "", ""},
		{"Galaxy", ScopeUnknown, "Galaxy", "", "", ""},
		{"/", ScopeUnknown, "", "", "", ""},
		{"_All", ScopeUnknown, "_All", "", "", ""},
	}
	for _, tt := range tests {
		got := ParseThrottleScope(tt.in)
		if got.Kind != tt.kind || got.Scope != tt.scope || got.Limit != tt.limit || got.AppID != tt.appID || got.ID != tt.id || got.Raw != tt.in {
			t.Errorf("ParseThrottleScope(%q) = %+v, want kind %v scope %q limit %q app %q id %q",
				tt.in, got, tt.kind, tt.scope, tt.limit, tt.appID, tt.id)
		}
	}
}

func TestParseThrottlePercentage(t *testing.T) {
	tests := []struct {
		in   string
		want float64
	}{
		{"", 0}, {"0.8", 0.8}, {" 1.0 ", 1}, {"1.8", 1.8}, {"0.95", 0.95},
		{"abc", 0}, {"-1", 0}, {"NaN", 0}, {"+Inf", 0}, {"80%", 0},
	}
	for _, tt := range tests {
		if got := ParseThrottlePercentage(tt.in); got != tt.want {
			t.Errorf("ParseThrottlePercentage(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"", 0, false},
		{"10", 10 * time.Second, true},
		{"2.128", 2128 * time.Millisecond, true},
		{"0.249", 249 * time.Millisecond, true},
		{"-3", 0, false},
		{"soon", 0, false},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
	}
	for _, tt := range tests {
		got, ok := ParseRetryAfter(tt.in, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseRetryAfter(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestObservationFromHeaders(t *testing.T) {
	h := http.Header{}
	h.Set("x-ms-throttle-limit-percentage", "0.85")
	h.Set("x-ms-throttle-scope", "Application/Read/app/tenant")
	h.Set("Retry-After", "3")
	h.Set("request-id", "rid-1")
	o := observe(429, h, time.Now())
	if o.Status != 429 || o.ThrottlePercentage != 0.85 || o.ThrottleScope.Kind != ScopeApp ||
		!o.HasRetryAfter || o.RetryAfter != 3*time.Second || o.RequestID != "rid-1" || !o.Throttled() {
		t.Fatalf("observe = %+v", o)
	}
	if o := observe(200, nil, time.Now()); o.ThrottlePercentage != 0 || o.ThrottleScope.Kind != ScopeUnknown || o.Throttled() {
		t.Fatalf("observe without headers = %+v", o)
	}
	if !(Observation{Status: 400, Code: "20166"}).Throttled() {
		t.Fatal("code 20166 in a 400 is a throttle")
	}
}

// TestThrottleBodiesFromRealAccounts: what real Graph sent (graph-reality.md
// #9-#13) is classified by status and code only: 429 with 10007 is a
// throttle like 20166, whatever language or spelling the message has.
func TestThrottleBodiesFromRealAccounts(t *testing.T) {
	tests := []struct {
		name      string
		status    int
		body      string
		want      Kind
		throttled bool
	}{
		{"429 10007 burst", 429, `{"error":{"code":"10007","message":"The server is too busy to handle the incoming request. Please try again later."}}`, KindThrottled, true},
		{"429 10007 Dutch", 429, `{"error":{"code":"10007","message":"De server is te druk om de binnenkomende aanvraag af te handelen. Probeer het later opnieuw."}}`, KindThrottled, true},
		{"503 10007", 503, `{"error":{"code":"10007","message":"busy"}}`, KindThrottled, true},
		{"20166 Too may connections", 429, `{"error":{"code":"20166","message":"Too may connections"}}`, KindThrottled, true},
		{"20166 with innerError", 429, `{"error":{"code":"20166","message":"The app has issued too many requests on behalf of this user in a short time period.","innerError":{"date":"2026-08-19T10:00:00","request-id":"r","client-request-id":"c"}}}`, KindThrottled, true},
		{"20166 Dutch in a 503", 503, `{"error":{"code":"20166","message":"De app heeft te veel aanvragen verzonden namens deze gebruiker."}}`, KindThrottled, true},
		{"500 19999 saying too many", 500, `{"error":{"code":"19999","message":"Too many requests"}}`, KindTransient, false},
		{"403 20185 Dutch", 403, `{"error":{"code":"20185","message":"Versleutelde secties zijn niet toegankelijk."}}`, KindProtected, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.status)
				_, _ = w.Write([]byte(tt.body))
			})
			_, obs, err := c.DownloadResource(t.Context(), "resources/r1/$value", io.Discard, 1<<20)
			if KindOf(err) != tt.want {
				t.Fatalf("kind %v, want %v: %v", KindOf(err), tt.want, err)
			}
			if obs.Throttled() != tt.throttled {
				t.Errorf("Observation.Throttled() = %v, want %v (%+v)", obs.Throttled(), tt.throttled, obs)
			}
			if IsThrottleCode(obs.Code) != (tt.throttled && obs.Code != "") {
				t.Errorf("IsThrottleCode(%q) = %v", obs.Code, IsThrottleCode(obs.Code))
			}
		})
	}
}
