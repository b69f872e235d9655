package onenote

import (
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
