package onenote

import (
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	page := requestClass{pageGET: true}
	other := requestClass{}
	tests := []struct {
		name      string
		status    int
		code      string
		rc        requestClass
		want      Kind
		retryable bool
		hint      string // substring the hint must contain
	}{
		{"429 no code", 429, "", other, KindThrottled, true, ""},
		{"429 20166", 429, "20166", other, KindThrottled, true, ""},
		{"20166 in a 503", 503, "20166", other, KindThrottled, true, ""},
		{"20166 in a 400", 400, "20166", other, KindThrottled, true, ""},
		{"20166 in a 200", 200, "20166", other, KindThrottled, true, ""},
		{"10003 concurrency 429", 429, "10003", other, KindConcurrency, true, ""},
		{"10003 concurrency 503", 503, "10003", other, KindConcurrency, true, ""},
		{"500", 500, "", other, KindTransient, true, ""},
		{"502", 502, "", other, KindTransient, true, ""},
		{"503", 503, "", other, KindTransient, true, ""},
		{"504", 504, "", other, KindTransient, true, ""},
		{"10001", 500, "10001", other, KindTransient, true, ""},
		{"10002", 503, "10002", other, KindTransient, true, ""},
		{"429 10007 (burst, graph-reality #9)", 429, "10007", other, KindThrottled, true, ""},
		{"10007 in a 503", 503, "10007", other, KindThrottled, true, ""},
		{"10014", 500, "10014", other, KindTransient, true, ""},
		{"10015", 503, "10015", other, KindTransient, true, ""},
		{"19999", 500, "19999", other, KindTransient, true, ""},
		{"30103 in a 400", 400, "30103", other, KindTransient, true, ""},
		{"408", 408, "", other, KindTransient, true, ""},
		{"bare 400 page GET", 400, "", page, KindTransient, true, ""},
		{"400 BadRequest page GET", 400, "BadRequest", page, KindTransient, true, ""},
		{"bare 400 elsewhere", 400, "", other, KindConfiguration, false, "bug"},
		{"401", 401, "", other, KindAuth, true, "refresh"},
		{"401 InvalidAuthenticationToken", 401, "InvalidAuthenticationToken", other, KindAuth, true, "refresh"},
		{"40001", 401, "40001", other, KindAuth, true, "refresh"},
		{"40004 missing scope", 403, "40004", other, KindPermission, false, "Notes.Read"},
		{"10004 password-protected section", 403, "10004", page, KindProtected, false, "unlock"},
		{"403 20185 encrypted section (graph-reality #13)", 403, "20185", page, KindProtected, false, "unlock"},
		{"20185 on a resource", 403, "20185", other, KindProtected, false, "retry the section"},
		{"403 bare", 403, "", other, KindPermission, false, "shared"},
		{"403 10008 library limit", 403, "10008", other, KindConfiguration, false, "5,000"},
		{"10013", 403, "10013", other, KindConfiguration, false, "20,000"},
		{"20266 max sections", 400, "20266", page, KindConfiguration, false, "per section"},
		{"20129 top too large", 400, "20129", page, KindConfiguration, false, "bug"},
		{"20104 pagelevel", 400, "20104", page, KindConfiguration, false, "bug"},
		{"20142 circular expand", 400, "20142", other, KindConfiguration, false, "bug"},
		{"404", 404, "", other, KindNotFound, false, ""},
		{"404 20102", 404, "20102", page, KindNotFound, false, ""},
		{"410", 410, "", other, KindNotFound, false, ""},
		{"302", 302, "", other, KindUnknown, false, ""},
		{"409", 409, "", other, KindUnknown, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, hint := classify(tt.status, tt.code, tt.rc)
			if got != tt.want {
				t.Fatalf("classify(%d, %q) = %v, want %v", tt.status, tt.code, got, tt.want)
			}
			if got.Retryable() != tt.retryable {
				t.Errorf("Retryable() = %v, want %v", got.Retryable(), tt.retryable)
			}
			if tt.hint != "" && !strings.Contains(hint, tt.hint) {
				t.Errorf("hint %q does not mention %q", hint, tt.hint)
			}
		})
	}
}
