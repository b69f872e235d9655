package graph

import "testing"

func TestOddRequestsGetGraphErrors(t *testing.T) {
	f := newFixture(t, Config{}, GenSpec{Notebooks: 1, SectionsPerContainer: 1, PagesPerSection: 1})
	for _, tc := range []struct {
		method, path, body string
		want               int
	}{
		{"GET", "/v1.0/me/onenote/", "", 404},
		{"GET", "/v1.0/me/onenote", "", 404},
		{"GET", "/v1.0/users/", "", 404},
		{"GET", "/v1.0/users/alice", "", 404},
		{"GET", "/v1.0/me/onenote/pages//content", "", 404},
		{"GET", "/v1.0/me/onenote/resources/x", "", 404},
		{"GET", "/v1.0/me/onenote/notebooks/a/b/c", "", 404},
		{"GET", "/v1.0/me/onenote/notebooks?$top=-1", "", 400},
		{"GET", "/v1.0/me/onenote/notebooks?$skip=x", "", 400},
		{"GET", "/v1.0/me/onenote/notebooks?$top=0", "", 200},
		{"GET", "/v1.0/me/onenote/sections?$skip=999&$filter=displayName ne 'x'", "", 200},
		{"GET", "/v1.0/me/onenote/notebooks?$expand=sectionGroups(((", "", 400},
		{"GET", "/v1.0/me/onenote/notebooks?$expand=%ZZ", "", 400},
		{"GET", "/v1.0/me/onenote/notebooks?$filter=contains(displayName,'x')", "", 200}, // [M1], fact 33
		{"GET", "/v1.0/me/onenote/notebooks?$filter=endswith(displayName,'x')", "", 400},
		{"GET", "/v1.0/me/onenote/notebooks?$filter=displayName gt 'x'", "", 400},
		{"POST", "/v1.0/me/onenote/notebooks", "{}", 405},
		{"GET", "/v1.0/$batch", "", 405},
		{"POST", "/v1.0/$batch", `{"requests":[{"id":"1","method":"GET","url":"/me/onenote/notebooks","dependsOn":["1"]}]}`, 400},
		{"POST", "/v1.0/$batch", `{"requests":[{"id":"1","method":"GET"}]}`, 400},
		{"GET", "/nothing", "", 404},
	} {
		rec := f.do(t, "alice", tc.method, tc.path, tc.body)
		if rec.Code != tc.want {
			t.Errorf("%s %s: %d, want %d: %s", tc.method, tc.path, rec.Code, tc.want, rec.Body)
		}
		if rec.Code >= 400 && graphErrorCode(t, rec.Body.Bytes()) == "" {
			t.Errorf("%s %s: error body without a code: %s", tc.method, tc.path, rec.Body)
		}
	}
	if rec := f.get(t, "alice", "/v1.0/me/onenote/notebooks?$top=0"); len(decode[struct{ Value []any }](t, rec.Body.Bytes()).Value) != 0 {
		t.Errorf("$top=0 returned items")
	}
}
