// Package workflows holds Note Bridge's Temporal workflows:
// MigrateNotebook (one notebook into Notion, one MigrateSection child per
// section), MigrateSection (a section's pages through the page pipeline,
// in listing batches, with totals whose size does not grow with the
// section's) and ScanNotebooks (what a user has, and how long moving it
// would take).
//
// Every Graph request leaves under a permit of the limiter entity
// (limiter/entity): migrations ask in the background lane, scans in the
// foreground lane. Workflows carry user IDs, never tokens, and small
// metadata, never page bodies or binaries: those are staged on the worker
// that fetched them, and a page's steps stay on that worker (a Temporal
// session).
//
// Workflow code is deterministic: no wall clock, no goroutines but
// workflow.Go, no map iteration whose order matters, no I/O.
package workflows
