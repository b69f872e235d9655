package seconds

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestDurationJSON(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		json string
	}{
		{53 * time.Second, "53"},
		{250 * time.Millisecond, "0.25"},
		{6*time.Minute + 9*time.Second, "369"},
		{1500 * time.Microsecond, "0.002"},
		{0, "0"},
	} {
		b, err := json.Marshal(struct {
			ETA Duration `json:"etaSeconds"`
		}{Of(tc.d)})
		if err != nil {
			t.Fatal(err)
		}
		if want := `{"etaSeconds":` + tc.json + `}`; string(b) != want {
			t.Errorf("%v: got %s, want %s", tc.d, b, want)
		}
		var back Duration
		if err := json.Unmarshal([]byte(tc.json), &back); err != nil {
			t.Fatal(err)
		}
		if want := tc.d.Round(time.Millisecond); back.D() != want {
			t.Errorf("%s read back as %v, want %v", tc.json, back.D(), want)
		}
	}
	var d Duration
	if err := json.Unmarshal([]byte(`"1m"`), &d); err == nil {
		t.Error("a duration string was read as seconds; want an error naming the form")
	}
}

func TestUnreadableKeys(t *testing.T) {
	doc := `{"etaSeconds":53,"eta":53000000000,"phase":"migrating","live":{"permitsWaited":5,"permitWaitSeconds":5},` +
		`"windows":[{"per":60000000000,"perSeconds":60}],"etaText":"1m","waiting":3,"waitingFor":"x"}`
	got, err := UnreadableKeys([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".eta", ".live.permitsWaited", ".windows[].per"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("got %v, want %v", got, want)
	}
}
