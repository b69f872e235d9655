package activities

import "context"

// SetHeartbeatRecorder makes a record its heartbeats with record: the
// test environment's own recorder holds most of them back.
func SetHeartbeatRecorder(a *Activities, record func(ctx context.Context, details ...any)) {
	a.record = record
}

// Abandon gives up a's staging as a killed worker process does: its lock
// goes, its files stay.
func Abandon(a *Activities) { a.lock.Close() }

// ProcessStaging is a's own directory in the staging directory.
func ProcessStaging(a *Activities) string { return a.staging }
