package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.temporal.io/sdk/temporal"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/failure"
	"github.com/notebridge/notebridge/workflows"
)

// runOffline runs a command that must not reach Temporal.
func runOffline(t *testing.T, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, &out, &errOut)
	return result{code, out.String(), errOut.String()}
}

func TestHelpShowsTheTemporalCommand(t *testing.T) {
	t.Setenv("TEMPORAL_ADDRESS", "temporal.example:7233")
	t.Setenv("NOTEBRIDGE_TASK_QUEUE", "")
	t.Setenv("TEMPORAL_NAMESPACE", "")
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"login", "-help"}, []string{"None: signing in talks to Microsoft", "-create-key", "-authority"}},
		{[]string{"scan", "-user", "alice", "--help"}, []string{
			`temporal workflow execute --address temporal.example:7233 --namespace default --task-queue notebridge --type ScanNotebooks --workflow-id scan/alice --input '{"user":"alice"}'`}},
		{[]string{"migrate", "-user", "alice", "-notion-parent", "p1", "-h"}, []string{
			`temporal workflow start --address temporal.example:7233 --namespace default --task-queue notebridge --type MigrateNotebook --workflow-id 'migrate/alice/<notebookID>' --id-reuse-policy AllowDuplicate --id-conflict-policy Fail --fail-existing --static-summary 'Migrate notebook "<notebook name>" of alice' --static-details 'Migrates OneNote notebook **<notebook name>** (ID <notebookID>) of user alice into Notion, under page p1. Its current details say how it goes; follow it with ` + "`" + `starter status -w '\''migrate/alice/<notebookID>'\'' --follow` + "`" + ` or the ` + "`" + `progress` + "`" + ` query.' --search-attribute 'NoteBridgeUser="alice"' --search-attribute 'NoteBridgeNotebook="<notebookID>"' --input '{"user":"alice","notebook":"<notebook ID or name>","notionParent":"p1"}'`,
			`temporal workflow query --address temporal.example:7233 --namespace default --workflow-id 'migrate/alice/<notebookID>' --name progress`}},
		{[]string{"status", "-w", "migrate/alice/nb1", "-app-id", "app1", "-help"}, []string{
			"temporal workflow query --address temporal.example:7233 --namespace default --workflow-id migrate/alice/nb1 --name progress",
			"--workflow-id 'migrate/alice/nb1/section/<sectionID>' --name progress",
			"--workflow-id limiter/graph-onenote/app1 --name state"}},
		{[]string{"retry", "-w", "migrate/alice/nb1", "-section", "s1", "-help"}, []string{
			`temporal workflow update execute --address temporal.example:7233 --namespace default --workflow-id migrate/alice/nb1 --name retry-section --input '"s1"'`,
			"--workflow-id migrate/alice/nb1 --name retry-failed"}},
		{[]string{"finish", "-user", "alice", "-notebook", "nb1", "-help"}, []string{
			"temporal workflow update execute --address temporal.example:7233 --namespace default --workflow-id migrate/alice/nb1 --name finish",
			"temporal workflow result --address temporal.example:7233 --namespace default --workflow-id migrate/alice/nb1"}},
		{[]string{"list", "-user", "alice", "-status", "waiting", "-help"}, []string{
			`temporal workflow list --address temporal.example:7233 --namespace default --query 'WorkflowType = "MigrateNotebook" AND NoteBridgeUser = "alice" AND NoteBridgeStatus = "waiting"'`}},
		// The same in pflag's spelling, and through help CMD.
		{[]string{"list", "--user=alice", "--status", "waiting", "--help"}, []string{`NoteBridgeUser = "alice" AND NoteBridgeStatus = "waiting"`}},
		{[]string{"status", "--workflow-id", "migrate/alice/nb1", "-h"}, []string{"--workflow-id migrate/alice/nb1 --name progress"}},
		{[]string{"help", "status"}, []string{"--workflow-id 'migrate/<user>/<notebookID>' --name progress", "-f, --follow", "--json"}},
		{[]string{"help", "retry"}, []string{"--name retry-section --input '\"<sectionID>\"'"}},
	} {
		r := runOffline(t, tc.args...)
		if r.code != 0 {
			t.Errorf("%v: %v", tc.args, r)
		}
		for _, want := range append(tc.want, "The same with the temporal CLI:", "Flags:") {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("%v: help lacks %q:\n%s", tc.args, want, r.stdout)
			}
		}
	}
}

func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{nil, exitUsage, "Usage: starter <command>"},
		{[]string{"frobnicate"}, exitUsage, `unknown command "frobnicate"`},
		{[]string{"help"}, exitOK, "Commands:"},
		{[]string{"scan"}, exitUsage, "--user is required"},
		{[]string{"scan", "-user", "alice", "extra"}, exitUsage, "unexpected arguments"},
		{[]string{"scan", "-nope"}, exitUsage, "unknown flag: --nope"},
		{[]string{"login", "-user", "alice"}, exitUsage, "--app-id (or NOTEBRIDGE_APP_ID) is required"},
		{[]string{"login", "-user", "../etc", "-app-id", "a"}, exitUsage, "invalid user ID"},
		{[]string{"login", "-user", "alice", "-app-id", "a", "-scope", "Notes.ReadWrite"}, exitUsage, "Notes.Read.All"},
		{[]string{"migrate", "-notebook", "n", "-notion-parent", "p"}, exitUsage, `field "user": is required`},
		{[]string{"migrate", "-user", "alice", "-notion-parent", "p"}, exitUsage, "(flag --notebook)"},
		{[]string{"migrate", "-user", "alice", "-notebook", "n"}, exitUsage, "(flag --notion-parent)"},
		{[]string{"migrate", "-user", "alice", "-notebook", "n", "-notion-parent", "p", "-section-parallelism", "99"}, exitUsage, "(flag --section-parallelism)"},
		{[]string{"migrate", "-user", "alice", "-notebook", "n", "-notion-parent", "p", "-limits", "fast"}, exitUsage, "(flag --limits)"},
		{[]string{"migrate", "-input", `{"user":"alice","notebok":"n"}`}, exitUsage, `"notebok"`},
		{[]string{"migrate", "-user", "alice", "-notebook", "n", "-notion-parent", "p", "--image-alt", "ocr"}, exitUsage, `must be "drop" or "caption" (flag --image-alt)`},
		{[]string{"migrate", "-user", "a", "-include", "S", "-exclude", "S", "-notebook", "n", "-notion-parent", "p"}, exitUsage, "(flag --exclude)"},
		{[]string{"retry", "-w", "x"}, exitUsage, "give either --section S or --all"},
		{[]string{"retry", "-w", "x", "-all", "-section", "s"}, exitUsage, "give either --section S or --all"},
		{[]string{"list", "-limit", "0"}, exitUsage, "--limit must be positive"},
		{[]string{"list", "--limit=0"}, exitUsage, "--limit must be positive"},
		{[]string{"list", "--status", "bogus"}, exitUsage, `--status "bogus": use one of reading, migrating, waiting, linking, done, done-with-failures, failed, stopped`},
		{[]string{"list", "--json", "-status=bogus"}, exitUsage, "use one of reading"},
		{[]string{"list", "--limit", "many"}, exitUsage, `invalid argument "many" for "--limit"`},
		{[]string{"scan", "--bogus"}, exitUsage, "unknown flag: --bogus"},
		{[]string{"scan", "-x"}, exitUsage, "unknown shorthand flag: 'x'"},
		{[]string{"scan", "--json"}, exitUsage, "--user is required"},
		{[]string{"status", "-w", "x", "extra"}, exitUsage, "unexpected arguments"},
		{[]string{"status", "-w", "x", "--interval", "0s"}, exitUsage, "--interval must be positive"},
		{[]string{"status", "-w", "x", "-interval", "soon"}, exitUsage, `invalid argument "soon" for "--interval"`},
		{[]string{"migrate", "--user", "a", "--notebook", "n", "--notion-parent", "p", "--interval", "-1s"}, exitUsage, "--interval must be positive"},
		{[]string{"migrate", "--input", "{}", "--input-file", "f.json"}, exitUsage, "--input and --input-file: use one"},
		{[]string{"migrate", "--json", "--user", "alice", "--notion-parent", "p"}, exitUsage, "(flag --notebook)"},
		{[]string{"retry", "--workflow-id", "x", "--all", "--section", "s"}, exitUsage, "give either --section S or --all"},
		{[]string{"finish", "--user"}, exitUsage, "flag needs an argument: --user"},
		{[]string{"login", "--user", "alice", "--app-id", "a", "--scope", "Notes.ReadWrite"}, exitUsage, "Notes.Read.All"},
		{[]string{"--json"}, exitUsage, "Usage: starter <command>"},
		{[]string{"--version"}, exitOK, "starter "},
		{[]string{"-version"}, exitOK, "starter "},
		{[]string{"--help"}, exitOK, "Exit codes: 0 done, 1 failed, 2 bad command line, 130 interrupted"},
	} {
		r := runOffline(t, tc.args...)
		if r.code != tc.code || !strings.Contains(r.stdout+r.stderr, tc.want) {
			t.Errorf("%v: want exit %d saying %q, got %v", tc.args, tc.code, tc.want, r)
		}
	}
}

func TestLoginNeedsAKey(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("NOTEBRIDGE_TOKEN_KEY", "")
	r := runOffline(t, "login", "-user", "alice", "-app-id", "a", "-token-dir", filepath.Join(dir, "tokens"),
		"-token-key-file", filepath.Join(dir, "token.key"))
	if r.code != exitFailed || !strings.Contains(r.stderr, "starter login --user alice --create-key") {
		t.Errorf("login without a key: %v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "token.key")); !os.IsNotExist(err) {
		t.Errorf("a key file was created without -create-key: %v", err)
	}
}

func TestMergeInput(t *testing.T) {
	flags := workflows.MigrateInput{User: "bob", PageParallelism: 7}
	in, err := mergeInput(flags, map[string]bool{"user": true}, `{"user":"alice","notebook":"n","notionParent":"p","pageParallelism":2,"include":["A"]}`, "")
	if err != nil {
		t.Fatal(err)
	}
	if in.User != "bob" || in.Notebook != "n" || in.NotionParent != "p" || in.PageParallelism != 2 || len(in.Include) != 1 {
		t.Errorf("merged: %+v; want the JSON with the flags set on the command line laid over it", in)
	}
	file := filepath.Join(t.TempDir(), "in.json")
	if err := os.WriteFile(file, []byte(`{"user":"carol","notebook":"n2","dryRun":true}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if in, err := mergeInput(workflows.MigrateInput{}, nil, "", file); err != nil || in.User != "carol" || !in.DryRun {
		t.Errorf("input file: %+v, %v", in, err)
	}
	if _, err := mergeInput(workflows.MigrateInput{}, nil, "{}", file); err == nil {
		t.Error("-input and -input-file together: no error")
	}
	if in, err := mergeInput(flags, nil, "", ""); err != nil || in.User != "bob" {
		t.Errorf("flags alone: %+v, %v", in, err)
	}
	// The content options: the flags win over the JSON, the JSON's stay.
	opts := workflows.MigrateInput{ContentOptions: activities.ContentOptions{SkipImages: true, SkipInk: false, ImageAlt: "caption"}}
	in, err = mergeInput(opts, map[string]bool{"skip-images": true, "skip-ink": true, "image-alt": true},
		`{"user":"a","notebook":"n","notionParent":"p","skipInk":true,"skipAttachments":true,"imageAlt":"drop"}`, "")
	want := activities.ContentOptions{SkipImages: true, SkipAttachments: true, SkipInk: false, ImageAlt: "caption"}
	if err != nil || in.ContentOptions != want {
		t.Errorf("content options merged: %+v, %v; want %+v", in.ContentOptions, err, want)
	}
}

func TestTidy(t *testing.T) {
	msg := `child workflow execution error (type: MigrateSection, workflowID: m/s, runID: r, initiatedEventID: 1, startedEventID: 2): ` +
		`listing the pages of section "N / S": activity error (type: ListPages, scheduledEventID: 13, startedEventID: 14, identity: w): ` +
		`onenote: list pages: not found: HTTP 404 code 20102: The requested resource does not exist. (type: GraphNotFound, retryable: false): ` +
		`onenote: list pages: not found: HTTP 404 code 20102: The requested resource does not exist. (type: Error, retryable: true) (wrapError)`
	want := `listing the pages of section "N / S": onenote: list pages: not found: HTTP 404 code 20102: The requested resource does not exist.`
	if got := tidy(msg); got != want {
		t.Errorf("tidy\n got %s\nwant %s", got, want)
	}
}

func TestListQuery(t *testing.T) {
	f := listFilter{user: `al"ice`, status: "waiting", open: true}
	want := `WorkflowType = "MigrateNotebook" AND NoteBridgeUser = "al\"ice" AND NoteBridgeStatus = "waiting" AND ExecutionStatus = "Running"`
	if got := f.query(); got != want {
		t.Errorf("query\n got %s\nwant %s", got, want)
	}
}

func TestNotSignedInIsRecognised(t *testing.T) {
	signIn := temporal.NewNonRetryableApplicationError(`user "bob" is not signed in to Microsoft`, failure.NotSignedIn, nil)
	conv := temporal.GetDefaultFailureConverter()
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		// A notebook stopped on a section's lost sign-in: the stop keeps
		// it as its cause.
		{"stop's cause", temporal.NewNonRetryableApplicationError("sign in, then start again", failure.Config, signIn),
			`run "starter login --user bob"`},
		// A scan whose listing failed, wrapped by the workflow.
		{"wrapped", fmt.Errorf("listing notebooks: %w", signIn), `run "starter login --user bob"`},
		{"another failure", temporal.NewNonRetryableApplicationError("notebook \"X\" not found", failure.Config, nil),
			`scan of bob failed: notebook "X" not found`},
	} {
		// What the starter gets: the error as it crossed the server.
		got := explain(conv.FailureToError(conv.ErrorToFailure(tc.err)), "bob", "scan of bob")
		if !strings.Contains(got.Error(), tc.want) {
			t.Errorf("%s: explain = %v, want %q in it", tc.name, got, tc.want)
		}
	}
}

func TestDashed(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{"status -user alice -notebook n -follow", "status --user alice --notebook n --follow"},
		{"status -w id -f", "status -w id -f"},
		{"status -w=id --follow=true", "status -w=id --follow=true"},
		{"migrate -notion-parent -x -limits=onenote", "migrate --notion-parent -x --limits=onenote"},
		{"migrate -include -a -include -b", "migrate --include -a --include -b"},
		{"scan -nope", "scan --nope"},
		{"-json list -user u", "--json list --user u"},
		{"-version", "--version"},
		{"list -- -user", "list -- -user"},
		{"help status", "help status"},
	} {
		c := &cli{stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}
		got, _ := normalize(c.rootCmd(), strings.Fields(tc.args))
		if strings.Join(got, " ") != tc.want {
			t.Errorf("normalize(%s) = %s, want %s", tc.args, strings.Join(got, " "), tc.want)
		}
	}
}

func TestSectionID(t *testing.T) {
	sec := func(id, name, path, status string) workflows.SectionSummary {
		s := workflows.SectionSummary{Status: status}
		s.ID, s.Name, s.Path = id, name, path
		return s
	}
	sections := []workflows.SectionSummary{
		sec("s1", "Notes", "Work / 2023 / Notes", workflows.SectionFailed),
		sec("s2", "Notes", "Work / 2024 / Notes", workflows.SectionDone),
		sec("s3", "Ideas", "Work / Ideas", workflows.SectionFailed),
	}
	for _, tc := range []struct {
		name, want, err string
	}{
		{"s2", "s2", ""},
		{"Ideas", "s3", ""},
		{"ideas", "s3", ""},
		{"Work / 2023 / Notes", "s1", ""},
		{"Notes", "", `--section "Notes" names 2 sections: "Work / 2023 / Notes" (ID s1, failed), "Work / 2024 / Notes" (ID s2, done). Name one by its path or ID`},
		{"nope", "nope", ""}, // the migration lists what it can retry
	} {
		got, err := sectionID(sections, tc.name)
		var ue *usageError
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("sectionID(%q) = %q, %v; want %q", tc.name, got, err, tc.want)
		case tc.err != "" && (!errors.As(err, &ue) || err.Error() != tc.err):
			t.Errorf("sectionID(%q): error %v, want the usage error %q", tc.name, err, tc.err)
		}
	}
}

// TestCLIFlagsNameTheCodecServer: with a payload key configured, every
// temporal CLI command starter prints goes through the codec server (the
// workers refuse plaintext input); without one it does not.
func TestCLIFlagsNameTheCodecServer(t *testing.T) {
	tests := []struct {
		name    string
		keyFile string
		env     map[string]string
		want    string
	}{
		{"no key", "", nil, "--address 127.0.0.1:7233 --namespace default"},
		{"key file", "/k", nil, "--address 127.0.0.1:7233 --namespace default --codec-endpoint http://127.0.0.1:8234"},
		{"key in the environment, endpoint set", "", map[string]string{"NOTEBRIDGE_CODEC_KEY": "x", "NOTEBRIDGE_CODEC_ENDPOINT": "https://codec.example:9443"},
			"--address 127.0.0.1:7233 --namespace default --codec-endpoint https://codec.example:9443"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tf := &temporalFlags{address: "127.0.0.1:7233", namespace: "default", codecKeyFile: tt.keyFile,
				getenv: func(k string) string { return tt.env[k] }}
			if got := tf.cliFlags(); got != tt.want {
				t.Errorf("cliFlags() = %q, want %q", got, tt.want)
			}
		})
	}
}
