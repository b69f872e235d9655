package onenote

import (
	"encoding/json"
	"testing"
	"time"
)

func TestKindsRoundTripAsJSON(t *testing.T) {
	for k := KindUnknown; k <= KindCanceled; k++ {
		b, err := json.Marshal(k)
		var got Kind
		if err != nil || json.Unmarshal(b, &got) != nil || got != k {
			t.Errorf("Kind %v: %s -> %v (%v)", k, b, got, err)
		}
	}
	obs := Observation{Status: 429, Code: "20166", ThrottleScope: ParseThrottleScope("Application"), Cost: 1, Duration: time.Second}
	b, err := json.Marshal(obs)
	if err != nil {
		t.Fatal(err)
	}
	var back Observation
	if err := json.Unmarshal(b, &back); err != nil || back != obs {
		t.Fatalf("observation round trip: %s -> %+v (%v)", b, back, err)
	}
	var k Kind
	var s ScopeKind
	if json.Unmarshal([]byte(`"nonsense"`), &k) == nil || json.Unmarshal([]byte(`"galaxy"`), &s) == nil {
		t.Error("unknown names must not decode")
	}
}
