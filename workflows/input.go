package workflows

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"unicode"

	"go.temporal.io/sdk/temporal"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/convert"
	"github.com/notebridge/notebridge/failure"
	"github.com/notebridge/notebridge/limiter"
)

// Defaults of MigrateInput's options.
const (
	DefaultSectionParallelism = 3
	DefaultPageParallelism    = 3
	DefaultPagesPerRun        = 200
	maxParallelism            = 20
)

// MigrateInput is what an operator types into `temporal workflow start`:
//
//	{"user":"alice","notebook":"Work notes","notionParent":"<page id>",
//	 "include":["Section A"],"exclude":[],"dryRun":false,"limits":"onenote"}
type MigrateInput struct {
	// User is whose notebook it is (the token store's user ID).
	User string `json:"user"`
	// Notebook is the notebook's ID or display name.
	Notebook string `json:"notebook"`
	// NotionParent is the Notion page (shared with the integration) the
	// notebook goes under. Not needed for a dry run.
	NotionParent string `json:"notionParent"`
	// Include, if not empty, migrates only these sections, and Exclude
	// skips these; each names a section by ID, display name or path
	// ("Group/Section").
	Include []string `json:"include,omitempty"`
	Exclude []string `json:"exclude,omitempty"`
	// DryRun reads the notebook and lists its pages but writes nothing
	// and fetches no content.
	DryRun bool `json:"dryRun,omitempty"`
	// Limits is the Graph limits profile: "onenote" (default) or
	// "onenote-x<factor>" (time-scaled, for demos and tests). A limiter
	// that already runs keeps its own.
	Limits string `json:"limits,omitempty"`
	// SectionParallelism is how many sections migrate at once (3).
	SectionParallelism int `json:"sectionParallelism,omitempty"`
	// PageParallelism is how many pages of a section are in the pipeline
	// at once (3).
	PageParallelism int `json:"pageParallelism,omitempty"`
	// PagesPerRun is how many pages a section handles before it
	// continues as new (200).
	PagesPerRun int `json:"pagesPerRun,omitempty"`
	// SectionsPerRun is how many section runs the notebook starts before
	// it continues as new (0: only when Temporal suggests it).
	SectionsPerRun int `json:"sectionsPerRun,omitempty"`
	// File, when set, is a OneNote file to read the notebook from instead
	// of Graph: a .onepkg package (OneNote's File > Export > Notebook >
	// OneNote Package), a .onetoc2 table of contents with its sections
	// beside it, a .one section, or a notebook's folder. It is an absolute
	// path every worker can read. Notebook is then optional (it renames
	// the notebook in Notion), and sync is not allowed. See
	// docs/file-import.md.
	File string `json:"file,omitempty"`
	// AdoptNotebookPage, when set, is the Notion ID of the notebook page
	// a file import of this notebook made under NotionParent: a Graph
	// migration or sync that finds no notebook page of its own takes that
	// page and its section databases over (matched by the sections' GUIDs,
	// never by title) instead of making new ones, so the file's rows are
	// updated in place (found by the page GUID in each page's OneNote
	// link: by a sync's plan, or by a migration's row lookup). A page
	// that is no file import of this notebook is refused. Not with file.
	// See docs/file-import.md.
	AdoptNotebookPage string `json:"adoptNotebookPage,omitempty"`
	// Sync, when set, makes this run a sync of a notebook migrated
	// before: only what changed in OneNote is written (see SyncOptions).
	Sync *SyncOptions `json:"sync,omitempty"`
	// ContentOptions are the fields skipImages, skipAttachments, skipInk
	// (leave every image, attachment or drawing out: a skipped image or
	// attachment is never fetched, saving its Graph request, and each is
	// reported as skipped by option) and imageAlt ("drop", the default, or
	// "caption": an image's alt text becomes its caption), and
	// skipVerify (do not read each written page back). See
	// docs/options.md.
	activities.ContentOptions
	// State is the notebook's progress carried across continue-as-new.
	// The workflow sets it; leave it out.
	State *NotebookState `json:"state,omitempty"`

	// decodeErr is what was wrong with the JSON this input was decoded
	// from (see UnmarshalJSON); Validate reports it. unknownOnly is set
	// when that was only fields the input does not have: the rest was
	// decoded, and Validate checks it too.
	decodeErr   error
	unknownOnly bool
}

// migrateInputFields lists MigrateInput's JSON fields, for error messages.
const migrateInputFields = "user, notebook, notionParent, include, exclude, dryRun, file, limits, sectionParallelism, pageParallelism, pagesPerRun, sectionsPerRun, skipImages, skipAttachments, skipInk, imageAlt, skipVerify, sync, adoptNotebookPage"

// UnmarshalJSON decodes an input strictly (an unknown field is an error,
// so a misspelt option is not silently ignored). It never fails: what is
// wrong is kept and Validate reports it, naming the field, so a malformed
// `temporal workflow start --input` ends the workflow with an error that
// says what to fix instead of failing its task over and over.
func (in *MigrateInput) UnmarshalJSON(b []byte) error {
	type plain MigrateInput
	var v plain
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	err := dec.Decode(&v)
	if err == nil && dec.More() {
		err = errors.New("trailing data after the JSON object")
	}
	*in = MigrateInput(v)
	if err != nil && strings.HasPrefix(err.Error(), "json: unknown field ") {
		// encoding/json names the first unknown field and decodes the
		// rest: name them all.
		in.decodeErr, in.unknownOnly = unknownFields(b), true
		return nil
	}
	in.decodeErr = describeDecodeError(err)
	return nil
}

// unknownFields is the error naming every top-level field of the JSON
// object b that the input does not have, each with a suggestion when it
// is a misspelling of one it has.
func unknownFields(b []byte) error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return invalid("input", "does not decode: %v", err)
	}
	known := append(strings.Split(migrateInputFields, ", "), "state")
	var bad, names, hints []string
	for _, name := range slices.Sorted(maps.Keys(obj)) {
		if slices.ContainsFunc(known, func(f string) bool { return strings.EqualFold(f, name) }) {
			continue
		}
		hint := ""
		bare := strings.ToLower(strings.NewReplacer("_", "", "-", "", " ", "").Replace(name))
		for _, f := range known {
			if editDistance(strings.ToLower(f), bare) <= 2 {
				hint = fmt.Sprintf(" (did you mean %q?)", f)
				break
			}
		}
		bad = append(bad, fmt.Sprintf("%q%s", name, hint))
		names, hints = append(names, name), append(hints, hint)
	}
	if len(bad) == 1 {
		return invalid("input", "has a field %q, which the input does not have%s; the fields are %s", names[0], hints[0], migrateInputFields)
	}
	return invalid("input", "has fields %s, which the input does not have; the fields are %s", strings.Join(bad, ", "), migrateInputFields)
}

// describeDecodeError turns a JSON decoding error into an invalid-input
// error naming the field.
func describeDecodeError(err error) error {
	var typ *json.UnmarshalTypeError
	var syn *json.SyntaxError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &typ) && typ.Field != "":
		// encoding/json matches keys case-insensitively and reports the
		// key as written ("noteBook"): name the field as documented.
		top, rest, nested := strings.Cut(typ.Field, ".")
		for _, f := range append(strings.Split(migrateInputFields, ", "), "state") {
			if strings.EqualFold(f, top) {
				top = f
			}
		}
		field := top
		if nested {
			field += "." + rest
		}
		return invalid(field, "is a JSON %s; it must be %s", typ.Value, jsonKind(typ.Type.Kind()))
	case errors.As(err, &typ):
		return invalid("input", "is a JSON %s; it must be an object such as "+
			`{"user":"alice","notebook":"Work notes","notionParent":"<page id>"}`, typ.Value)
	case errors.As(err, &syn):
		return invalid("input", "is not valid JSON (at byte %d: %v)", syn.Offset, syn)
	}
	return invalid("input", "does not decode: %v", err)
}

// editDistance is the Levenshtein distance of a and b, for suggesting
// the field a misspelt one meant.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// jsonKind names what a Go kind looks like in JSON.
func jsonKind(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8,
		reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "a list"
	}
	return "an object"
}

// invalid is the non-retryable error naming a bad field.
func invalid(field, format string, args ...any) error {
	return temporal.NewNonRetryableApplicationError(
		fmt.Sprintf("invalid input: field %q: %s", field, fmt.Sprintf(format, args...)), failure.InvalidInput, nil, field)
}

// Validate checks the input and fills defaults. Its error names every
// problem it finds at once, each with its field (one problem keeps the
// plain form, `invalid input: field "x": ...`).
func (in *MigrateInput) Validate() error {
	if in.decodeErr != nil && !in.unknownOnly {
		return in.decodeErr
	}
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	add(in.decodeErr)
	in.User = strings.TrimSpace(in.User)
	in.Notebook = strings.TrimSpace(in.Notebook)
	in.NotionParent = strings.TrimSpace(in.NotionParent)
	add(validUser(in.User))
	in.File = strings.TrimSpace(in.File)
	switch {
	case in.File != "":
		if !isAbsPath(in.File) {
			add(invalid("file", "%q is not an absolute path: give the path at which every worker reads the file", in.File))
		}
		if in.Sync != nil {
			add(invalid("sync", "is not allowed with file: a sync reads the notebook through Graph; import the file, then sync the notebook from Graph"))
		}
		if in.AdoptNotebookPage != "" {
			add(invalid("adoptNotebookPage", "is not allowed with file: it names a file import's notebook page for a Graph run to take over"))
		}
	case in.Notebook == "":
		add(invalid("notebook", "is required: the notebook's ID or display name"))
	}
	if in.NotionParent == "" && !in.DryRun {
		add(invalid("notionParent", "is required: the ID of a Notion page shared with the integration"))
	}
	if strings.ContainsAny(in.NotionParent, " /?#") {
		add(invalid("notionParent", "%q is not a Notion page ID", in.NotionParent))
	}
	in.AdoptNotebookPage = strings.TrimSpace(in.AdoptNotebookPage)
	if strings.ContainsAny(in.AdoptNotebookPage, " /?#") {
		add(invalid("adoptNotebookPage", "%q is not a Notion page ID: give the ID of the file import's notebook page", in.AdoptNotebookPage))
	}
	for _, f := range []struct {
		name string
		list []string
	}{{"include", in.Include}, {"exclude", in.Exclude}} {
		for i, s := range f.list {
			if strings.TrimSpace(s) == "" {
				add(invalid(f.name, "item %d is empty", i))
			}
		}
	}
	for _, s := range in.Include {
		if slices.Contains(in.Exclude, s) {
			add(invalid("exclude", "%q is also in include", s))
		}
	}
	if _, err := limiter.Profile(in.Limits); err != nil {
		add(invalid("limits", "%v", err))
	}
	if in.Sync != nil {
		add(in.Sync.validate())
	}
	if err := in.ContentOptions.Validate(); err != nil {
		add(invalid("imageAlt", "%q is not allowed: it must be %s", in.ImageAlt, convert.ImageAltModes))
	}
	for _, f := range []struct {
		name string
		v    *int
		def  int
		max  int
	}{
		{"sectionParallelism", &in.SectionParallelism, DefaultSectionParallelism, maxParallelism},
		{"pageParallelism", &in.PageParallelism, DefaultPageParallelism, maxParallelism},
		{"pagesPerRun", &in.PagesPerRun, DefaultPagesPerRun, 5000},
		{"sectionsPerRun", &in.SectionsPerRun, 0, 10000},
	} {
		switch {
		case *f.v < 0 || *f.v > f.max:
			add(invalid(f.name, "%d is out of range (1 to %d, 0 for the default %d)", *f.v, f.max, f.def))
		case *f.v == 0:
			*f.v = f.def
		}
	}
	return joinInvalid(errs)
}

// joinInvalid is one invalid-input error for all of errs (each made by
// invalid): nil for none, the error itself for one, else a list of them,
// one a line, its details every field named.
func joinInvalid(errs []error) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	lines := make([]string, len(errs))
	var fields []any
	for i, err := range errs {
		msg := err.Error()
		var app *temporal.ApplicationError
		var field string
		if errors.As(err, &app) {
			msg = app.Message()
			if app.HasDetails() && app.Details(&field) == nil {
				fields = append(fields, field)
			}
		}
		lines[i] = "- " + strings.TrimPrefix(msg, "invalid input: ")
	}
	return temporal.NewNonRetryableApplicationError(
		fmt.Sprintf("invalid input: %d problems:\n%s", len(errs), strings.Join(lines, "\n")), failure.InvalidInput, nil, fields...)
}

func validUser(u string) error {
	if u == "" {
		return invalid("user", "is required: the user ID the token store knows")
	}
	if len(u) > 200 {
		return invalid("user", "is longer than 200 characters")
	}
	for _, r := range u {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("._@+-", r)) {
			return invalid("user", "%q has a character other than letters, digits and . _ @ + -", u)
		}
	}
	return nil
}

// isAbsPath reports whether p is an absolute path on a Unix worker
// ("/data/Notes.onepkg") or a Windows one (`C:\Notes.onepkg`,
// `\\server\share\Notes.onepkg`): the workflow cannot know the workers'
// system, so both forms pass.
func isAbsPath(p string) bool {
	switch {
	case strings.HasPrefix(p, "/"), strings.HasPrefix(p, `\\`):
		return true
	case len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/'):
		c := p[0] | 0x20
		return c >= 'a' && c <= 'z'
	}
	return false
}
