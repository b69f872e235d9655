// Package graph is an in-process and standalone stand-in for the Microsoft
// Graph OneNote API, faithful to the behaviour described in
// shared/reference/graph-onenote.md.
//
// A *Server is an http.Handler. It serves notebooks, section groups,
// sections, pages (with Graph's paging quirks), page content as OneNote
// output HTML, resources and JSON $batch, under both /v1.0/me/onenote/...
// and /v1.0/users/{id}/onenote/.... It enforces the six OneNote limits
// (per user and per app: requests per rolling minute, per rolling hour, and
// concurrent requests) with sliding logs, answers Microsoft identity
// platform device-code and refresh-token grants, injects faults
// deterministically from a seed, and keeps counters and a request log that
// Violations checks against the advertised limits.
//
// Typical use in a test:
//
//	srv := graph.NewServer(graph.Config{Seed: 1, Now: clock.Now})
//	srv.AddNotebooks("alice", graph.Generate(graph.GenSpec{Seed: 1, Owner: "alice", Notebooks: 1, SectionsPerContainer: 2, PagesPerSection: 30})...)
//	ts := httptest.NewServer(srv)
//	tok := srv.IssueToken("alice", []string{"Notes.Read"}, time.Hour)
//	// GET ts.URL + "/v1.0/me/onenote/notebooks" with "Authorization: Bearer " + tok
//
// The Server's Go API, by job:
//
//   - data: AddNotebooks, AddResource, Generate, SmallSpec, LoadFixtures,
//     PageIDs, DeletePage, TouchPage
//   - auth: IssueToken, ExpireTokens, ApproveDeviceCode, DeclineDeviceCode
//   - behaviour: SetFaults, ClearFaults, SetBaseURL
//   - referee: Stats, Log, ResetStats, Violations, CheckViolations,
//     AdvertisedLimits, EnforcedLimits, UserGUID
//
// Emulator-only endpoints live under /_emulator/ and are neither
// authenticated nor counted: GET stats, violations and log; POST faults (a
// JSON Faults), pages/{id}/delete and pages/{id}/touch.
package graph
