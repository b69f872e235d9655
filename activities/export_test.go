package activities

import "context"

// SetHeartbeatRecorder makes a record its heartbeats with record: the
// test environment's own recorder holds most of them back.
func SetHeartbeatRecorder(a *Activities, record func(ctx context.Context, details ...any)) {
	a.record = record
}
