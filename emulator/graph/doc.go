// Package graph is an in-process and standalone stand-in for the Microsoft
// Graph OneNote API, faithful to what real accounts do
// (shared/reference/graph-reality.md) and, where that is silent, to the
// documentation (shared/reference/graph-onenote.md).
//
// A *Server is an http.Handler. It serves notebooks, section groups,
// sections, pages (with Graph's paging quirks), page content as OneNote
// output HTML, resources and JSON $batch, under both /v1.0/me/onenote/...
// and /v1.0/users/{id}/onenote/..., over HTTP or HTTPS. It enforces the
// six OneNote limits (per user and per app: requests per rolling minute,
// per rolling hour, and concurrent requests) with sliding logs, answers Microsoft identity
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
//     PageIDs, PageResources, LockSection, RemoveResource
//   - edits a person makes in OneNote: DeletePage, TouchPage, RenamePage,
//     ShiftTimestamp, MovePage, MovePageNewGUID, AddPage, AddPageAt,
//     SetPageLevel, MovePageGroup, RenameSection, RenameSectionGroup,
//     MoveSection; as values: Edit, Apply, RandomEdit
//   - auth: IssueToken, ExpireTokens, ApproveDeviceCode, DeclineDeviceCode
//   - behaviour: SetFaults, ClearFaults, SetBaseURL
//   - transport: NewTLSCert, NewTLSTestServer (HTTPS on loopback)
//   - referee: Stats, Log, ResetStats, Violations, CheckViolations,
//     AdvertisedLimits, EnforcedLimits, UserGUID
//
// Where real Graph departs from its documentation the emulator follows the
// measurement (shared/reference/graph-reality.md): $expand nests two
// levels at most, the account-wide section and section-group lists answer
// 500 19999, resources are application/octet-stream, page HTML does not
// come back through $batch, page ids embed their section. README.md lists
// every behaviour with its source and switch.
//
// Emulator-only endpoints live under /_emulator/ and are neither
// authenticated nor counted: GET stats, violations and log; POST faults (a
// JSON Faults) and one endpoint for each edit above (serveEmulator lists
// them; README.md gives each one's source).
package graph
