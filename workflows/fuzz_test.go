package workflows

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"github.com/notebridge/notebridge/failure"
	"github.com/notebridge/notebridge/limiter"
)

// inputFields are the JSON names of MigrateInput's fields, and "input"
// for the input as a whole; a validation error must name one of them.
var inputFields = func() []string {
	names := []string{"input"}
	t := reflect.TypeFor[MigrateInput]()
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			names = append(names, name)
		}
	}
	return names
}()

// FuzzMigrateNotebookInput feeds arbitrary bytes through the path a
// MigrateNotebook input takes: the JSON an operator types into `temporal
// workflow start --input` (decoded by the SDK's data converter, as the
// workflow receives it) or into the starter's -input (decoded strictly,
// unknown fields refused), then Validate. Nothing may panic; a rejected
// input gets a non-retryable InvalidInput error naming a field; an
// accepted one is normalised, its limits profile is a valid spec, and it
// survives a round trip through JSON and Validate unchanged.
func FuzzMigrateNotebookInput(f *testing.F) {
	for _, s := range []string{
		`{"user":"alice","notebook":"Work notes","notionParent":"abc123"}`,
		`{"user":"alice","notebook":"Work notes","notionParent":"<page id>","include":["Section A"],"exclude":[],"dryRun":false,"limits":"onenote"}`,
		`{"user":" bob@example.com ","notebook":"0-1234!5678","dryRun":true,"limits":"onenote-x60","sectionParallelism":20,"pageParallelism":1,"pagesPerRun":5000}`,
		`{"user":"alice","notebook":"n","notionParent":"p","include":["G/S","s3"],"exclude":["G/S"]}`,
		`{"user":"al ice","notebook":"n","notionParent":"p"}`,
		`{"user":"alice","notebook":"n","notionParent":"a/b"}`,
		`{"user":"alice","notebook":"n","notionParent":"p","limits":"onenote-x0.5"}`,
		`{"user":"alice","notebook":"n","notionParent":"p","pagesPerRun":-1}`,
		`{"user":"alice","notebook":"n","notionParent":"p","include":[""]}`,
		`{"user":"alice","notebook":"n","notionParent":"p","unknown":1}`,
		`{"user":"a","notebook":"n","dryRun":true,"state":{"notebookID":"x","sections":[{}],"databases":{},"queue":[],"started":"2024-01-01T00:00:00+01:00"}}`,
		`{"user":"a","notebook":"n","notionParent":"p","state":{"started":"yesterday"}}`,
		`{"user":"a","notebook":"n","notionParent":"p","include":[1]}`,
		`{"user":"a","notebook":"n","notionParent":"p","sectionsPerRun":10000} {}`,
		`{"user":123}`, `{"user":null,"notebook":["x"]}`, `null`, `[]`, `""`, `{}`, ``, `{"user":"\u00e9l\u00e8ve","notebook":"\ud800"}`,
	} {
		f.Add([]byte(s))
	}
	dc := converter.GetDefaultDataConverter()
	f.Fuzz(func(t *testing.T, b []byte) {
		// As the workflow receives it: only bytes that are not JSON at
		// all fail to decode; every other mistake is for Validate to name.
		var in MigrateInput
		if err := dc.FromPayload(jsonPayload(b), &in); err != nil {
			if json.Valid(b) {
				t.Fatalf("valid JSON %q refused by the data converter: %v", b, err)
			}
			return
		}
		// As the starter reads -input: the same input.
		var strict MigrateInput
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&strict); err != nil {
			t.Fatalf("the starter's decoder refuses %q, which the workflow accepts: %v", b, err)
		}
		if !sameInput(t, strict, in) {
			t.Fatalf("the starter and the workflow read %q differently:\n%+v\n%+v", b, strict, in)
		}
		checkValidate(t, dc, in)
	})
}

// checkValidate checks the outcome of Validate on in.
func checkValidate(t *testing.T, dc converter.DataConverter, in MigrateInput) {
	t.Helper()
	orig := in
	err := in.Validate()
	if err != nil {
		var app *temporal.ApplicationError
		if !errors.As(err, &app) || !app.NonRetryable() || app.Type() != failure.InvalidInput {
			t.Fatalf("Validate(%+v) = %v, want a non-retryable %s error", orig, err, failure.InvalidInput)
		}
		var field string
		if app.Details(&field) != nil {
			t.Fatalf("Validate(%+v): error %q names no field", orig, err)
		}
		top, _, _ := strings.Cut(field, ".")
		if !slices.Contains(inputFields, top) {
			t.Fatalf("Validate(%+v): error %q names field %q, not one of the input's", orig, err, field)
		}
		if !strings.Contains(err.Error(), `"`+field+`"`) {
			t.Fatalf("Validate(%+v): error %q does not show field %q", orig, err, field)
		}
		return
	}

	// Accepted: normalised and in range.
	switch {
	case in.User == "" || in.User != strings.TrimSpace(in.User) || len(in.User) > 200:
		t.Fatalf("accepted user %q", in.User)
	case in.Notebook == "" || in.Notebook != strings.TrimSpace(in.Notebook):
		t.Fatalf("accepted notebook %q", in.Notebook)
	case in.NotionParent == "" && !in.DryRun:
		t.Fatal("accepted a migration without a Notion parent")
	case in.SectionParallelism < 1 || in.SectionParallelism > maxParallelism,
		in.PageParallelism < 1 || in.PageParallelism > maxParallelism,
		in.PagesPerRun < 1 || in.PagesPerRun > 5000:
		t.Fatalf("accepted out-of-range options %+v", in)
	}
	spec, err := limiter.Profile(in.Limits)
	if err != nil {
		t.Fatalf("accepted limits %q that limiter.Profile refuses: %v", in.Limits, err)
	}
	if err := spec.Validate(); err != nil {
		t.Fatalf("accepted limits %q whose spec is invalid: %v", in.Limits, err)
	}

	// The round trip an accepted input makes (starter -> history ->
	// workflow, continue-as-new) changes nothing, and Validate is
	// idempotent.
	p, err := dc.ToPayload(in)
	if err != nil {
		t.Fatalf("encode %+v: %v", in, err)
	}
	var again MigrateInput
	if err := dc.FromPayload(p, &again); err != nil {
		t.Fatalf("decode %s: %v", p.Data, err)
	}
	if err := again.Validate(); err != nil {
		t.Fatalf("an accepted input is refused after a round trip: %v\n%s", err, p.Data)
	}
	if !sameInput(t, in, again) {
		t.Fatalf("round trip changed the input:\n%+v\n%+v", in, again)
	}
	if err := again.Validate(); err != nil || !sameInput(t, in, again) {
		t.Fatalf("Validate is not idempotent: %v\n%+v\n%+v", err, in, again)
	}
}

// sameInput compares inputs as JSON (what travels between the starter,
// the history and continue-as-new) and by what Validate will say of them.
func sameInput(t *testing.T, a, b MigrateInput) bool {
	t.Helper()
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatalf("marshal %+v: %v", a, err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		t.Fatalf("marshal %+v: %v", b, err)
	}
	return bytes.Equal(ja, jb) && fmt.Sprint(a.decodeErr) == fmt.Sprint(b.decodeErr)
}

func jsonPayload(b []byte) *commonpb.Payload {
	return &commonpb.Payload{Metadata: map[string][]byte{converter.MetadataEncoding: []byte(converter.MetadataEncodingJSON)}, Data: b}
}
