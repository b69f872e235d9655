package workflows

import (
	"encoding/json"
	"fmt"
	"strings"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
)

// What a start of a notebook's migration gives Temporal, whoever starts
// it (starter, the demo through `temporal workflow start`, the tests):
// the workflow ID, the summary the Web UI lists it by, and the search
// attributes `starter list` filters on. The workflow sets everything else
// a person sees itself (current details from its first step, its
// children's summaries, the status attribute), and upserts the user and
// notebook attributes too, so a start that gave none still lists.

// NotebookSummary is the static summary of a notebook's migration: what
// the Web UI's list of workflows shows for it.
func NotebookSummary(notebookName, user string) string {
	return clipText(fmt.Sprintf("Migrate notebook %q of %s", notebookName, user), 200)
}

// NotebookDetails are the static details of a notebook's migration: what
// it migrates where, and how to follow it.
func NotebookDetails(notebookID, notebookName string, in MigrateInput) string {
	id := NotebookWorkflowID(in.User, notebookID)
	return fmt.Sprintf("Migrates OneNote notebook **%s** (ID %s) of user %s into Notion, under page %s. "+
		"Its current details say how it goes; follow it with %s "+
		"or the `%s` query.", clipText(notebookName, 200), notebookID, in.User, orNone(in.NotionParent),
		command("starter", "status", "-w", id, "--follow"), QueryProgress)
}

// StartOptions are the start options of the migration of notebook (its
// ID and name) with in on queue. The policies refuse a second run while
// one runs: a start never joins a running migration silently.
func StartOptions(queue, notebookID, notebookName string, in MigrateInput) client.StartWorkflowOptions {
	return client.StartWorkflowOptions{
		ID: NotebookWorkflowID(in.User, notebookID), TaskQueue: queue,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
		StaticSummary:            NotebookSummary(notebookName, in.User),
		StaticDetails:            NotebookDetails(notebookID, notebookName, in),
		TypedSearchAttributes: temporal.NewSearchAttributes(AttrUser.ValueSet(in.User),
			AttrNotebook.ValueSet(notebookID)),
	}
}

// StartCommand is the same start as arguments of `temporal workflow
// start` (v1.5.1), after the connection flags: the command the README
// documents and the demo runs. --fail-existing is what makes a second
// start of a running migration fail: the server refuses it (conflict
// policy Fail), but without the flag the CLI's SDK client turns that
// refusal into a handle on the running execution (its
// WorkflowExecutionErrorWhenAlreadyStarted), which the CLI prints as
// "Running execution" and exits 0, the new input dropped.
func StartCommand(queue, notebookID, notebookName string, in MigrateInput) ([]string, error) {
	raw, err := plainJSON(in)
	if err != nil {
		return nil, fmt.Errorf("input: %w", err)
	}
	o := StartOptions(queue, notebookID, notebookName, in)
	return []string{"workflow", "start", "--task-queue", o.TaskQueue, "--type", MigrateNotebookName,
		"--workflow-id", o.ID, "--id-reuse-policy", "AllowDuplicate", "--id-conflict-policy", "Fail", "--fail-existing",
		"--static-summary", o.StaticSummary, "--static-details", o.StaticDetails,
		"--search-attribute", AttrUser.GetName() + "=" + jsonString(in.User),
		"--search-attribute", AttrNotebook.GetName() + "=" + jsonString(notebookID),
		"--input", raw}, nil
}

// jsonString is s as a JSON string, as the CLI's --search-attribute
// takes a value.
func jsonString(s string) string {
	raw, _ := plainJSON(s) // a string always marshals
	return raw
}

// plainJSON is v as JSON without HTML escapes, as a person would type it.
func plainJSON(v any) (string, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}
