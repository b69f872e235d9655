// Package notion is an in-process and standalone stand-in for the Notion
// REST API (version 2022-06-28 shapes), faithful to the behaviour described
// in shared/reference/notion-api.md.
//
// A *Server is an http.Handler holding one in-memory workspace. It serves
// pages, databases (with query filters, sorts and pagination), block
// children (append and list), blocks (retrieve, update, archive), the File
// Upload API and users/me; it validates every payload rule the Notion API
// enforces (rich-text links only to http and https URLs among them) and
// answers violations with Notion's status, error code and message shape,
// storing nothing of a refused request; it keeps created_time and
// last_edited_time to the minute, as Notion does; it answers 403 to tokens
// without the capability an endpoint needs and 404 for objects not shared
// with the integration; it rate-limits each integration token with a token
// bucket (about 3 requests a second), answers 429 with an integer
// Retry-After and logs every request's arrival per token fingerprint
// (GET /_emulator/log); and it injects faults (5xx, 409, 529, slow
// responses, and writes that are applied but answered with 500 or 504)
// from a seed. README.md lists each behaviour with its source.
//
// Typical use in a test:
//
//	srv := notion.NewServer(notion.Config{Seed: 1, Now: clock.Now})
//	ts := httptest.NewServer(srv)
//	tok := srv.IssueToken()
//	root := srv.RootPageID()
//	// POST ts.URL+"/v1/pages" with "Authorization: Bearer "+tok and
//	// "Notion-Version: 2022-06-28", parent {"page_id": root}.
//	ws := srv.Export() // everything written, as a tree
//
// Emulator-only endpoints live under /_emulator/: export (JSON), stats,
// log (per-token request arrivals), capabilities, faults, view (a
// read-only HTML view of the workspace) and files (the bytes of uploaded
// files). They are neither authenticated nor rate-limited.
package notion
