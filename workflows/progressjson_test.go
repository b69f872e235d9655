package workflows

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/notebridge/notebridge/internal/seconds"
)

// TestProgressJSONIsReadable: the progress query's answer, as the
// temporal CLI prints it, has durations in seconds, page and section
// counts apart (no top-level "done" beside "pagesDone"), a section's
// pages as the notebook counts them, and a one-line summary; it reads
// back into the same NotebookProgress.
func TestProgressJSONIsReadable(t *testing.T) {
	live := &SectionPulse{SectionID: "b", Phase: "migrating", Pages: 40, Done: 12, Permits: 30, Waited: 95 * time.Second}
	p := NotebookProgress{Phase: "migrating", Running: 1, Done: 1, Pending: 1,
		Sections: []SectionSummary{
			{SectionRef: SectionRef{ID: "a"}, Status: SectionDone, Pages: 10},
			{SectionRef: SectionRef{ID: "b"}, Status: SectionRunning, Pages: 40, Live: live},
			{SectionRef: SectionRef{ID: "c"}, Status: SectionPending},
		},
		PagesListed: 50, PagesDone: 22, PagesSkipped: 3, PagesFailed: 1, Permits: 41, Waited: 123500 * time.Millisecond,
		ETA: 53 * time.Second, Health: Health{State: "ok", StallAfter: seconds.Of(30 * time.Second)}}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if bad, _ := seconds.UnreadableKeys(b); len(bad) > 0 {
		t.Errorf("durations not in seconds: %v in %s", bad, b)
	}
	for key, want := range map[string]any{"etaSeconds": 53.0, "permitWaitSeconds": 123.5, "permits": 41.0} {
		if m[key] != want {
			t.Errorf("%s = %v, want %v", key, m[key], want)
		}
	}
	for _, gone := range []string{"done", "pending", "running", "failed", "pagesDone", "pagesListed", "eta", "permitsWaited"} {
		if _, ok := m[gone]; ok {
			t.Errorf("top-level %q: counts of sections and of pages side by side", gone)
		}
	}
	pages := m["pages"].(map[string]any)
	if pages["total"] != 50.0 || pages["done"] != 22.0 || pages["left"] != 27.0 || pages["totalIsPartial"] != true {
		t.Errorf("pages %v, want 22 of 50+ done, 27 left", pages)
	}
	if sc := m["sectionCounts"].(map[string]any); sc["done"] != 1.0 || sc["running"] != 1.0 || sc["pending"] != 1.0 {
		t.Errorf("sectionCounts %v", sc)
	}
	sum, _ := m["summary"].(string)
	if want := "migrating: 22/50+ pages done (3 unchanged), 1 failed, 27 left · sections 1 done, 1 running, 1 pending, 0 failed · " +
		"41 Graph permits, waited 2m4s · ETA 53s"; sum != want {
		t.Errorf("summary\n got %q\nwant %q", sum, want)
	}
	liveJSON := m["sections"].([]any)[1].(map[string]any)["live"].(map[string]any)
	if liveJSON["permitWaitSeconds"] != 95.0 {
		t.Errorf("a section's live counts: %v, want permitWaitSeconds 95", liveJSON)
	}
	var back NotebookProgress
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, p) {
		t.Errorf("read back\n got %+v\nwant %+v", back, p)
	}
}

// TestSectionJSONInSeconds: a section's progress query and its pulse
// (a signal kept in histories) write seconds, and a pulse written
// before, in nanoseconds, still reads.
func TestSectionJSONInSeconds(t *testing.T) {
	sp := SectionProgress{Section: "S", Phase: "migrating", Pages: 4, Waited: 1500 * time.Millisecond, ETA: time.Minute}
	b, err := json.Marshal(sp)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if bad, _ := seconds.UnreadableKeys(b); len(bad) > 0 || m["etaSeconds"] != 60.0 || m["permitWaitSeconds"] != 1.5 {
		t.Errorf("section progress %s", b)
	}
	var back SectionProgress
	if err := json.Unmarshal(b, &back); err != nil || back != sp {
		t.Errorf("read back %+v (%v), want %+v", back, err, sp)
	}
	for _, tc := range []struct{ json, why string }{
		{`{"sectionID":"s","permitWaitSeconds":2.5}`, "seconds"},
		{`{"sectionID":"s","permitsWaited":2500000000}`, "nanoseconds, as pulses were written before"},
	} {
		var p SectionPulse
		if err := json.Unmarshal([]byte(tc.json), &p); err != nil || p.Waited != 2500*time.Millisecond || p.SectionID != "s" {
			t.Errorf("pulse in %s: %+v (%v), want 2.5s waited", tc.why, p, err)
		}
	}
}
