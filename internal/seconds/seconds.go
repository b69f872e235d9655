// Package seconds is the one JSON form of a duration that a person
// reads: a number of seconds (to the millisecond), under a key ending in
// "Seconds". Query answers and the starter's JSON use it, so no output
// shows nanoseconds.
package seconds

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// Duration is a time.Duration written to JSON as seconds: 53 for 53s,
// 0.25 for 250ms.
type Duration time.Duration

// Of is d as a Duration.
func Of(d time.Duration) Duration { return Duration(d) }

// D is d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// MarshalJSON writes d as a number of seconds, rounded to the
// millisecond.
func (d Duration) MarshalJSON() ([]byte, error) {
	ms := time.Duration(d).Round(time.Millisecond).Milliseconds()
	return []byte(strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64)), nil
}

// UnmarshalJSON reads a number of seconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("duration %s: want a number of seconds such as 53 or 0.25", b)
	}
	*d = Duration(time.Duration(f * float64(time.Second)).Round(time.Millisecond))
	return nil
}
