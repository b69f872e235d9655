// Package notion is Note Bridge's Notion writer: it creates the Notion
// containers of a OneNote notebook, writes each OneNote page as a row of
// its section's database exactly once, uploads images and attachments
// through the File Upload API, and rewrites internal links in a second
// pass. It never imports the Temporal SDK: activities call it.
//
// # Transport
//
// A Client sends every request itself (base URL configurable, Notion-Version
// 2026-03-11 (APIVersion), the token from a TokenSource and never logged or
// put in an error). A section database's rows, schema and queries live in
// its data source, learned once per Client (datasource.go); a database a
// person changed in a way the writer cannot follow (its key property
// renamed or deleted, none of its data sources the writer's) stops with a
// DatabaseChangeError before anything is written. Every attempt first waits for its token's Pace (Config.Pacing),
// found by the token's Fingerprint, never by the token.
//
// # Pacing
//
// Notion's rate limit (about 3 requests a second, then 429 rate_limited
// with Retry-After) belongs to the integration token, whatever the number
// of processes using it. The limit is enforced where the requests are
// made, deep inside activities: one page write is a create, appends of 100
// blocks, uploads, and their retries, so a permit per request from the
// workflow would cost a workflow round trip per request and cannot reach
// the retries made inside the client. The Client therefore asks a small
// interface, Pace (Wait before each attempt, Pause on a Retry-After), and
// knows nothing of how it is shared:
//
//   - Pacer (from a Pacers registry) paces one token within one process:
//     a generic cell rate algorithm plus a pause. Tests and single-process
//     tools use it; give every Client of the process the same Pacers.
//   - The worker wires a Pacing shared by every process (package
//     limiter/entity, entity.Pacing): each token's send slots come from one
//     limiter entity, so three workers together keep the token's rate, and
//     a Retry-After given to one of them pauses all of them.
//
// Retries rebuild the request body each attempt. 429 and 529 wait for
// Retry-After (seconds or an HTTP date), and the wait pauses the token's
// Pace, so no request of that token leaves before it ends; 409, 502 and 503 (and 500 and 504 on reads)
// back off exponentially with jitter; attempts are bounded, every wait
// honours the context, and the clock is injectable. Errors a caller must
// tell apart match sentinels with errors.Is: ErrRateLimited, ErrRetryable,
// ErrNotFound (missing or not shared), ErrUnauthorized, ErrValidation,
// ErrWorkspaceBlockLimit, ErrUploadRefused, ErrUnknownOutcome,
// ErrInconsistent; *APIError carries Notion's status, code and message.
//
// A write (POST, PATCH, DELETE) that answered 500 or 504, or got no answer,
// may have taken effect. It is never sent again blindly: it is first looked
// up (reconciled), and only sent again if it did not happen:
//
//   - creating a row: query the database by OneNote page ID;
//   - creating a container page or database: list the parent's children
//     and look for the title;
//   - appending children: count the parent's children (the writer knows how
//     many there were before); before+n means applied, and the listing
//     gives the IDs of the new blocks;
//   - updating row properties: read the row and compare the status and
//     the date sent;
//   - deleting a block: read it back, archived means done;
//   - upload steps: read the upload back (status, parts sent); an upload
//     create is simply made again, since an upload nobody attaches is
//     invisible and expires;
//   - a database query is a read in POST's clothing and is just retried.
//
// # Exactly-once page writes
//
// Notion has no transactions: creating a page with its first 100 blocks is
// the largest atomic step. WritePage makes a page write safe to repeat from
// any point, with two properties on the row as its only record: Migration
// status (writing, done) and Last modified in OneNote.
//
//  1. Query the section database for rows whose "OneNote page ID" is the
//     page's ID (several: keep a done one, else the oldest, and archive
//     the others). Notion rounds created_time down to the minute, so
//     "oldest" ties for rows made in one minute (a create sent again after
//     its answer was lost); the lower row ID breaks the tie, so every run
//     keeps the same row whatever order the query returns.
//  2. A row with status done and the input's Last modified: the page is
//     complete and unchanged; stop (Result.Unchanged).
//  3. Upload the page's files. A file Notion refuses becomes a paragraph
//     saying the attachment could not be carried over, and a Loss naming
//     the file. Fit the text to the rich-text rules (more Losses).
//  4. Plan: split the blocks into requests that obey every payload rule.
//     The plan is a function of the input: the same page gives the same
//     sequence of requests, run in a fixed order (a request, then the
//     children it left for later, depth first, then the next request).
//  5. No row: create it, status writing, with the input's properties and
//     the first request's blocks (one atomic call; an unknown outcome is
//     reconciled by the query of step 1), then run the rest of the plan.
//  6. A row with status writing and the input's Last modified was left
//     half-written by an earlier run of this same write. Invariant: its
//     content is what a prefix of the plan's requests produced. So resume:
//     list the page's children; every request before the last one present
//     is complete, and only the children that last request left for later
//     need a look (one listing per block, from the end, until one shows
//     more children than it was created with). Then run the rest of the
//     plan. If what is there is not a prefix of the plan (a different
//     converter, a person's edits), fall back to step 7.
//  7. Any other row (done but changed in OneNote, or writing with another
//     date) is replaced in place: set status writing and UNSET Last
//     modified, delete all its children, set the new properties (Last
//     modified included), run the whole plan. Unsetting the date first
//     keeps the invariant of step 6: a replace that stops half-way leaves a
//     row whose date matches no input, so the next run replaces again
//     rather than taking leftover old blocks for a prefix of the new plan.
//  8. Set status done, with the record of the page's internal links (see
//     Links). Only now is the page complete; a crash anywhere
//     before leaves status writing (or no row), and the next WritePage
//     ends with one complete row. A crash after it leaves a done row,
//     which the next run finds unchanged.
//
// A resumed write costs about what was left to write, plus a listing per
// 100 blocks; a replace also deletes the old top-level blocks one request
// each. Files are uploaded again on every run (the earlier, unattached
// uploads expire by themselves).
//
// WritePage assumes that no two writes of the same OneNote page run at the
// same time (the workflow runs a page's steps one after another; a Temporal
// activity retried after a timeout must not overlap its predecessor, e.g.
// use heartbeats or a session). If it happens anyway, two rows may be
// created; the next WritePage of the page keeps one and archives the rest.
//
// # Payload rules
//
// A request carries at most 100 blocks in any children array, 2 levels of
// children below its top-level blocks, 1000 blocks and 500 KB (a margin is
// kept for the rest of the body). Only a request's top-level blocks leave
// children for later: each carries the longest prefix of its children
// whose subtrees fit whole, and the rest are appended to its ID, which the
// request returns, so no nested block ID is ever needed. A table goes with
// its first rows (at least one, at most 100) and the rest follow. A heading
// whose children all follow later is still created toggleable (the block
// model marks only headings that carry children; the writer patches the
// JSON).
//
// Rich text is fitted before planning: runs over 2000 characters (UTF-16
// units) are split; arrays over 100 items have same-format neighbours
// merged, and a text block still too long becomes several blocks of its
// type (the children go with the last); a caption or table cell keeps its
// tail as plain text; links and media URLs over 2000 characters and
// equations over 1000 are kept as text or LaTeX code. Each visible change
// is a Loss.
//
// Only http and https URLs are ever sent as links (blocks.LinkAllowed):
// real Notion refuses a whole request for one link of another scheme
// (400 validation_error "Invalid URL for link."). A link of another
// scheme (file:, mailto:, teams:, ...) keeps its text followed by its
// target, "text (file:///…)", and is a Loss naming the scheme; a media
// block whose URL is not a web URL becomes a paragraph showing it; the
// OneNote link property is left empty (and a Loss) unless it is a web
// link.
//
// # Uploads
//
// Files up to 20 MB go in one part, larger ones in parts of 10 MiB. Files
// larger than the workspace's cap (GET /v1/users/me) are refused before any
// upload; a type Notion does not accept is refused at the upload's
// creation. Either way the block becomes a paragraph naming the file and
// the page gets a Loss. One resource used twice in a page is uploaded once.
// Uploads are made in the page write, before its requests; each request
// first replaces uploads that will expire within ten minutes, and a
// request refused because an upload expired gets fresh uploads of all its
// files and is sent once more.
//
// # Links
//
// An internal link (a run whose PageRef names a OneNote page, from an
// onenote: link's page-id) is written as plain text: onenote: links are
// never sent. WritePage records on the row where each one is
// (PropInternalLinks: the block's position in the page, which text of it,
// the link's offsets in that text, and the target's page-id GUID; see
// InternalLink) and checks "Links to rewrite" in the request that marks
// the row done, so every done row holds the record of the content it was
// written with, whether it was created, resumed or replaced.
// Nothing else is needed later: not the page HTML, not the worker that
// wrote the page, not a list kept in workflow history.
//
// The second pass, Client.RewriteRowLinks, runs once every page is
// written. Each row holds the page-id GUID internal links name it by
// (OneNote link ID); Client.Rows reads the rows (paced like every
// request): the done ones give the map of targets, the checked ones the
// pages to rewrite. For each recorded block (found by position, listing
// only the parents on the way) the links to migrated pages become page
// mentions (or, if Notion refuses the mention, links to the pages' Notion
// URLs) and those to pages not migrated keep their text followed by
// "(OneNote page not migrated)" and are a Loss; all links of a block go
// in one update. A block that already shows the pass's work (a mention,
// the note, a Notion URL link where its first link was) is left alone, so
// a pass that stopped half-way goes on where it stopped; an update whose
// outcome is unknown is checked the same way. MarkLinksRewritten unchecks
// the row once its links are done. Rows written before rows recorded
// their links are read back block by block and their onenote: links
// rewritten (RewritePageLinks reads the row first).
//
// RewriteLinks does the same in memory, through PageInput.LinkTargets,
// when the targets are known before a page is written.
//
// # Missing resources
//
// A ResourceOpener that cannot give a resource at all (gone from OneNote,
// over a size limit) returns an error wrapping ErrResourceUnavailable: the
// block becomes a paragraph naming the file and the page gets a Loss, as
// for a file Notion refuses.
//
// # Layout
//
// EnsureLayout makes a page per notebook under the operator's parent page,
// a page per section group (nested as in OneNote) and a database per
// section, with the properties Name, OneNote page ID, Section path,
// Created, Last modified in OneNote, OneNote link (the page's https web
// link), OneNote link ID, Links to rewrite, Internal links, Parent item (a
// relation of the database to itself, so subpages are sub-items) and
// Migration status (a database made before a property existed gets it
// when EnsureLayout finds it). Every container is looked for by title
// among its parent's child_page and child_database blocks before it is
// created.
//
// # Why not jomei/notionapi
//
// The design names github.com/jomei/notionapi; this package does not use
// it (and the module does not depend on it). Its client has no way to
// change the base URL (only a custom http.Client can redirect it); its
// only retry, on 429, sends the same *http.Request again with its body
// already read, so every POST and PATCH retry fails; it does not retry
// 5xx or 529 and drops the status of a non-JSON error body; its file
// objects cannot name a file_upload source and it has no File Upload
// endpoints. The HTTP layer, the reconciliation of unknown outcomes and
// uploads are ours anyway; for blocks, notion/blocks already marshals
// Notion's shapes; what is left (a query filter, a few property values,
// the database schema) is a few small maps here.
package notion
