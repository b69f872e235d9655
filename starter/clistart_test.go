package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdkpb "go.temporal.io/api/sdk/v1"
	"go.temporal.io/sdk/converter"

	"github.com/notebridge/notebridge/workflows"
)

// webView is what the Web UI shows of a migration's run: its summary and
// static details, its search attributes, memo keys and current details.
type webView struct {
	Summary, Details string
	Attributes       map[string]string
	Memo             []string
	CurrentDetails   string
}

// TestCLIStartLooksLikeStarterStart migrates the notebook with starter
// migrate, then again with the temporal CLI alone and the command
// workflows.StartCommand gives (the one the demo runs and the README's
// should be), and compares what the Web UI shows of the two runs.
func TestCLIStartLooksLikeStarterStart(t *testing.T) {
	cli, err := filepath.Abs(filepath.Join("..", "bin", "temporal"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(cli); err != nil {
		t.Skipf("no temporal CLI in ../bin: run `make temporal`")
	}
	h := newHarness(t)
	if r := h.login(t); r.code != 0 {
		t.Fatalf("login:\n%v", r)
	}
	h.startWorker(t)
	root := h.notion.RootPageID()
	id := workflows.NotebookWorkflowID("alice", h.notebook.ID)

	if r := h.cmd(t, "migrate", "-user", "alice", "-notebook", h.notebook.ID, "-notion-parent", root, "-limits", testProfile, "-detach"); r.code != 0 {
		t.Fatalf("migrate:\n%v", r)
	}
	byStarter := h.webView(t, id)

	start, err := workflows.StartCommand(testQueue, h.notebook.ID, h.notebook.DisplayName,
		workflows.MigrateInput{User: "alice", Notebook: h.notebook.ID, NotionParent: root, Limits: testProfile})
	if err != nil {
		t.Fatal(err)
	}
	args := append(append(start[:2:2], "--address", h.st.Server.HostPort(), "--namespace", "default"), start[2:]...)
	out, err := exec.Command(cli, args...).CombinedOutput()
	t.Logf("temporal %s\n%s", strings.Join(args, " "), out)
	if err != nil {
		t.Fatalf("temporal workflow start: %v", err)
	}
	// The same start again while that run runs is refused: the CLI
	// exits non-zero instead of printing the running execution as if
	// it had started it (issue 35 #5: --fail-existing).
	ctx := context.Background()
	d, err := h.tc.DescribeWorkflow(ctx, id, "")
	if err != nil {
		t.Fatal(err)
	}
	firstRun := d.RawResponse.GetWorkflowExecutionInfo().GetExecution().GetRunId()
	again, err := exec.Command(cli, args...).CombinedOutput()
	t.Logf("again:\n%s", again)
	if err == nil {
		if d, derr := h.tc.DescribeWorkflow(ctx, id, firstRun); derr == nil && d.RawResponse.GetWorkflowExecutionInfo().GetCloseTime() == nil {
			t.Errorf("a second start of the running migration exited 0:\n%s", again)
		}
	} else if strings.Contains(string(again), "Running execution") {
		t.Errorf("the refused second start printed a running execution:\n%s", again)
	}
	byCLI := h.webView(t, id)

	t.Logf("started by starter: %+v", byStarter)
	t.Logf("started by the CLI: %+v", byCLI)
	if byCLI.Summary == "" || byCLI.Summary != byStarter.Summary {
		t.Errorf("summary %q by the CLI, %q by starter", byCLI.Summary, byStarter.Summary)
	}
	if byCLI.Details == "" || byCLI.Details != byStarter.Details || !slices.Equal(byCLI.Memo, byStarter.Memo) {
		t.Errorf("static details %q and memo %q by the CLI; %q and %q by starter", byCLI.Details, byCLI.Memo, byStarter.Details, byStarter.Memo)
	}
	for _, k := range []string{workflows.AttrUser.GetName(), workflows.AttrNotebook.GetName(), workflows.AttrStatus.GetName()} {
		if byCLI.Attributes[k] == "" || byCLI.Attributes[k] != byStarter.Attributes[k] {
			t.Errorf("search attribute %s: %q by the CLI, %q by starter", k, byCLI.Attributes[k], byStarter.Attributes[k])
		}
	}
	// The second run finds every page unchanged: the details are alike
	// but for that.
	first := func(s string) string { l, _, _ := strings.Cut(s, " · "); return l }
	if first(byCLI.CurrentDetails) == "" || first(byCLI.CurrentDetails) != first(byStarter.CurrentDetails) {
		t.Errorf("current details %q by the CLI, %q by starter", byCLI.CurrentDetails, byStarter.CurrentDetails)
	}
}

// webView waits for the latest run of workflow id to end and reads what
// the Web UI shows of it.
func (h *harness) webView(t *testing.T, id string) webView {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var rep workflows.NotebookReport
	if err := h.tc.GetWorkflow(ctx, id, "").Get(ctx, &rep); err != nil {
		t.Fatalf("%s: %v", id, err)
	}
	desc, err := h.tc.DescribeWorkflow(ctx, id, "")
	if err != nil {
		t.Fatal(err)
	}
	d := desc.RawResponse
	dc := converter.GetDefaultDataConverter()
	var v webView
	if md := d.GetExecutionConfig().GetUserMetadata(); md != nil {
		if p := md.GetSummary(); p != nil {
			_ = dc.FromPayload(p, &v.Summary)
		}
		if p := md.GetDetails(); p != nil {
			_ = dc.FromPayload(p, &v.Details)
		}
	}
	v.Attributes = map[string]string{}
	for k, p := range d.GetWorkflowExecutionInfo().GetSearchAttributes().GetIndexedFields() {
		var s string
		if dc.FromPayload(p, &s) == nil && strings.HasPrefix(k, "NoteBridge") {
			v.Attributes[k] = s
		}
	}
	for k := range d.GetWorkflowExecutionInfo().GetMemo().GetFields() {
		v.Memo = append(v.Memo, k)
	}
	slices.Sort(v.Memo)
	q, err := h.tc.QueryWorkflow(ctx, id, "", "__temporal_workflow_metadata")
	if err != nil {
		t.Fatal(err)
	}
	var meta sdkpb.WorkflowMetadata
	if err := q.Get(&meta); err != nil {
		t.Fatal(err)
	}
	v.CurrentDetails = meta.GetCurrentDetails()
	return v
}
