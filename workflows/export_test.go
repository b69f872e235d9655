package workflows

import "time"

// SetSessionHeartbeatForTest shortens the heartbeat timeout of page
// sessions, so a test that stops a worker sees its session fail within
// seconds rather than 30 s. It returns a function that restores it.
func SetSessionHeartbeatForTest(d time.Duration) (restore func()) {
	old := sessionOptions.HeartbeatTimeout
	sessionOptions.HeartbeatTimeout = d
	return func() { sessionOptions.HeartbeatTimeout = old }
}
