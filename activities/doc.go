// Package activities holds Note Bridge's Temporal activities. Each is thin:
// it calls one package (onenote, onestore, convert or notion) and returns
// small, plain data.
//
// The file source's activities (filesource.go) read a notebook from
// OneNote's files with package onestore in place of Graph's tree, listing
// and content calls: no Graph request, no permit. They stage a page as
// FetchContent and FetchResources do, so WritePage serves both sources.
//
// Graph activities make exactly one upstream call (or, for resources, one
// sequence of k downloads under one permit of cost k), never retry upstream
// by themselves, and return what upstream said as a limiter.Outcome, so the
// limiter entity learns from every call (see limiter/entity.Call).
//
// Page bodies and binaries never leave the worker: content is staged under
// Config.StagingDir, keyed by page, and read back by the write activity on
// the same worker (the workflow keeps a page's steps in one Temporal
// session). Tokens never leave the worker either: activities get them from
// Tokens by user ID.
package activities
