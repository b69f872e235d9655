// Package seconds is the one JSON form of a duration that a person
// reads: a number of seconds (to the millisecond), under a key ending in
// "Seconds". Query answers and the starter's JSON use it, so no output
// shows nanoseconds.
package seconds

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
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

// UnreadableKeys returns the paths of the keys of a JSON document that
// look like durations (an ETA, a wait but not a count of waiting
// requests, a stall, a window's "per", a
// TTL) and hold a number under a key not ending in Seconds: nanoseconds,
// which a person cannot read. Tests of every JSON a person reads use it.
func UnreadableKeys(doc []byte) ([]string, error) {
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	return unreadable(v, ""), nil
}

func unreadable(v any, path string) []string {
	var bad []string
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			lk := strings.ToLower(k)
			looks := strings.Contains(lk, "eta") || strings.Contains(lk, "waited") || strings.HasSuffix(lk, "wait") || strings.Contains(lk, "stall") ||
				lk == "per" || lk == "ttl" || strings.Contains(lk, "duration") || strings.Contains(lk, "elapsed")
			if _, num := e.(float64); num && looks && !strings.HasSuffix(k, "Seconds") {
				bad = append(bad, path+"."+k)
			}
			bad = append(bad, unreadable(e, path+"."+k)...)
		}
	case []any:
		for _, e := range x {
			bad = append(bad, unreadable(e, path+"[]")...)
		}
	}
	slices.Sort(bad)
	return bad
}
