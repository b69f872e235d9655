package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/notebridge/notebridge/codec"
	"github.com/notebridge/notebridge/internal/devserver"
)

const e2eQueue = "codec-e2e"

// Markers stand for private data: a notebook name in the input, a page
// title through an activity and a signal, and a memo.
const (
	markerInput  = "MARKER-input-5e1d"
	markerSignal = "MARKER-signal-a09c"
	markerMemo   = "MARKER-memo-77b2"
)

type echoInput struct {
	User     string `json:"user"`
	Notebook string `json:"notebook"`
}

// echoWorkflow passes private data through an activity, a signal and its
// result, so that each kind of payload lands in the history.
func echoWorkflow(ctx workflow.Context, in echoInput) (string, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 1}})
	var title string
	if err := workflow.ExecuteActivity(ctx, echoActivity, in.Notebook).Get(ctx, &title); err != nil {
		return "", err
	}
	var sig string
	workflow.GetSignalChannel(ctx, "finish").Receive(ctx, &sig)
	return title + "|" + sig, nil
}

func echoActivity(_ context.Context, s string) (string, error) { return "page of " + s, nil }

// TestEncryptedHistoryOnDevServer runs a workflow on a real dev server
// with the codec on the starter and the worker, then checks that a client
// without the codec sees no plaintext in the history, that the codec
// server decodes it, and that the temporal CLI reads it through the codec
// server.
func TestEncryptedHistoryOnDevServer(t *testing.T) {
	srv := devserver.ForTest(t, devserver.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	// The codec server, as an operator runs it: a key file and a token file.
	dir := t.TempDir()
	keyFile, tokenFile := filepath.Join(dir, "codec.key"), filepath.Join(dir, "codec.token")
	if _, err := codec.GenerateKeyFile(keyFile); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tokenFile, []byte(testToken), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := startCodecServer(t, "-addr", "127.0.0.1:0", "-key-file", keyFile, "-auth-token-file", tokenFile)

	// The worker and the starter share the codec data converter.
	keys, err := codec.LoadKeys(env(nil), keyFile)
	if err != nil {
		t.Fatal(err)
	}
	dc, err := codec.DataConverter(keys)
	if err != nil {
		t.Fatal(err)
	}
	cc, err := client.Dial(client.Options{HostPort: srv.HostPort(), Namespace: "default", DataConverter: dc, Logger: quietLogger{}})
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	w := worker.New(cc, e2eQueue, worker.Options{})
	w.RegisterWorkflow(echoWorkflow)
	w.RegisterActivity(echoActivity)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	run, err := cc.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "codec-e2e/encrypted", TaskQueue: e2eQueue,
		Memo: map[string]any{"note": markerMemo}}, echoWorkflow, echoInput{User: "alice", Notebook: markerInput})
	if err != nil {
		t.Fatal(err)
	}
	if err := cc.SignalWorkflow(ctx, run.GetID(), run.GetRunID(), "finish", markerSignal); err != nil {
		t.Fatal(err)
	}
	var result string
	if err := run.Get(ctx, &result); err != nil {
		t.Fatal(err)
	}
	if want := "page of " + markerInput + "|" + markerSignal; result != want {
		t.Fatalf("result %q, want %q", result, want)
	}

	// A client without the codec: the history holds no plaintext.
	plain := srv.Client()
	events := history(ctx, t, plain, run.GetID(), run.GetRunID())
	for _, ev := range events {
		raw, err := proto.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []string{markerInput, markerSignal, markerMemo, "alice"} {
			if bytes.Contains(raw, []byte(m)) {
				t.Errorf("event %d (%s) holds %q in clear", ev.GetEventId(), ev.GetEventType(), m)
			}
		}
	}
	var payloads []*commonpb.Payload
	for _, ev := range events {
		collectPayloads(ev.ProtoReflect(), &payloads)
	}
	if len(payloads) < 6 { // input, memo, activity input and result, signal, result
		t.Fatalf("only %d payloads in the history", len(payloads))
	}
	for i, p := range payloads {
		if enc := string(p.GetMetadata()[converter.MetadataEncoding]); enc != codec.EncodingEncrypted {
			t.Errorf("payload %d has encoding %q, want %q", i, enc, codec.EncodingEncrypted)
		}
	}

	// The codec server decodes that history's payloads, as the Web UI asks.
	status, _, body := post(t, http.MethodPost, "http://"+addr+"/decode", jsonPayloads(t, payloads...), map[string]string{
		"Origin": "http://localhost:8233", "X-Namespace": "default", "Authorization": "Bearer " + testToken})
	if status != http.StatusOK {
		t.Fatalf("decode: %d %s", status, body)
	}
	var decoded commonpb.Payloads
	if err := protojson.Unmarshal([]byte(body), &decoded); err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, p := range decoded.Payloads {
		text.WriteString(converter.GetDefaultDataConverter().ToString(p))
		text.WriteString("\n")
	}
	for _, m := range []string{markerInput, markerSignal, markerMemo} {
		if !strings.Contains(text.String(), m) {
			t.Errorf("decoded payloads lack %q:\n%s", m, text.String())
		}
	}

	// Without the token the same request is refused.
	if status, _, _ := post(t, http.MethodPost, "http://"+addr+"/decode", jsonPayloads(t, payloads...), nil); status != http.StatusUnauthorized {
		t.Errorf("decode without the token: %d, want 401", status)
	}

	// The temporal CLI shows the history decrypted through the codec
	// server, and ciphertext without it.
	cli, err := devserver.FindCLI()
	if err != nil {
		t.Fatal(err)
	}
	show := func(extra ...string) string {
		args := append([]string{"workflow", "show", "--address", srv.HostPort(), "--namespace", "default",
			"--workflow-id", run.GetID(), "--output", "json"}, extra...)
		out, err := exec.CommandContext(ctx, cli, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("temporal %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	// JSON output shows payload data in base64.
	var wantData []string
	for _, v := range []any{echoInput{User: "alice", Notebook: markerInput}, markerSignal} {
		p, err := converter.GetDefaultDataConverter().ToPayload(v)
		if err != nil {
			t.Fatal(err)
		}
		wantData = append(wantData, base64.StdEncoding.EncodeToString(p.Data))
	}
	withCodec, without := show("--codec-endpoint", "http://"+addr, "--codec-auth", "Bearer "+testToken), show()
	for _, d := range wantData {
		if !strings.Contains(withCodec, d) {
			t.Errorf("temporal workflow show with the codec server lacks payload data %s:\n%.1500s", d, withCodec)
		}
		if strings.Contains(without, d) {
			t.Errorf("temporal workflow show without the codec server shows payload data %s", d)
		}
	}

	// Sanity check of the detector: a workflow started by a client
	// without the codec has its input in clear in the history, and a
	// worker with the lenient codec (codec.DataConverter, as with
	// -codec-allow-plaintext) still runs it; the product worker refuses it
	// (internal/workerapp TestWorkerRefusesPlaintextInput).
	prun, err := plain.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "codec-e2e/plain", TaskQueue: e2eQueue},
		echoWorkflow, echoInput{User: "alice", Notebook: markerInput})
	if err != nil {
		t.Fatal(err)
	}
	if err := plain.SignalWorkflow(ctx, prun.GetID(), "", "finish", "plain"); err != nil {
		t.Fatal(err)
	}
	if err := prun.Get(ctx, nil); err != nil {
		t.Fatalf("plain-started workflow: %v", err)
	}
	found := false
	for _, ev := range history(ctx, t, plain, prun.GetID(), prun.GetRunID()) {
		raw, _ := proto.Marshal(ev)
		found = found || bytes.Contains(raw, []byte(markerInput))
	}
	if !found {
		t.Error("the detector did not find a plaintext input: the check above proves nothing")
	}
	var out string
	if err := cc.GetWorkflow(ctx, prun.GetID(), prun.GetRunID()).Get(ctx, &out); err != nil || !strings.HasPrefix(out, "page of "+markerInput) {
		t.Errorf("plain-started workflow through the codec client: %q %v", out, err)
	}
}

// startCodecServer runs the binary's run function and returns its address.
func startCodecServer(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- run(ctx, args, env(nil), discard{}, discard{}, func(a string) { addrc <- a }) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("codec server: %v", err)
		}
	})
	select {
	case a := <-addrc:
		return a
	case err := <-done:
		t.Fatalf("codec server: %v", err)
		return ""
	}
}

func history(ctx context.Context, t *testing.T, c client.Client, id, runID string) []*historypb.HistoryEvent {
	t.Helper()
	it := c.GetWorkflowHistory(ctx, id, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var out []*historypb.HistoryEvent
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
	}
	if len(out) == 0 {
		t.Fatal("empty history")
	}
	return out
}

// collectPayloads appends every Payload inside m, at any depth.
func collectPayloads(m protoreflect.Message, out *[]*commonpb.Payload) {
	if p, ok := m.Interface().(*commonpb.Payload); ok {
		*out = append(*out, p)
		return
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap():
			if fd.MapValue().Message() != nil {
				v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
					collectPayloads(mv.Message(), out)
					return true
				})
			}
		case fd.IsList():
			if fd.Message() != nil {
				for i := range v.List().Len() {
					collectPayloads(v.List().Get(i).Message(), out)
				}
			}
		case fd.Message() != nil:
			collectPayloads(v.Message(), out)
		}
		return true
	})
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// quietLogger silences the SDK.
type quietLogger struct{}

func (quietLogger) Debug(string, ...any) {}
func (quietLogger) Info(string, ...any)  {}
func (quietLogger) Warn(string, ...any)  {}
func (quietLogger) Error(string, ...any) {}

// TestCLIWrongKeyShowsReason runs the temporal CLI against a codec server
// that holds a different key from the one that sealed a history: the CLI
// returns at once, showing the codec server's reason (both key IDs) where
// the payload would be, instead of retrying the decode for 10 seconds and
// printing "context deadline exceeded" (what an HTTP 400 answer gave).
func TestCLIWrongKeyShowsReason(t *testing.T) {
	srv := devserver.ForTest(t, devserver.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	dir := t.TempDir()
	sealing, serving := filepath.Join(dir, "sealing.key"), filepath.Join(dir, "serving.key")
	sealKey, err := codec.GenerateKeyFile(sealing)
	if err != nil {
		t.Fatal(err)
	}
	serveKey, err := codec.GenerateKeyFile(serving)
	if err != nil {
		t.Fatal(err)
	}
	addr := startCodecServer(t, "-addr", "127.0.0.1:0", "-key-file", serving)

	keys, err := codec.LoadKeys(env(nil), sealing)
	if err != nil {
		t.Fatal(err)
	}
	dc, err := codec.DataConverter(keys)
	if err != nil {
		t.Fatal(err)
	}
	cc, err := client.Dial(client.Options{HostPort: srv.HostPort(), Namespace: "default", DataConverter: dc, Logger: quietLogger{}})
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	// No worker: the started event alone holds a sealed payload.
	run, err := cc.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "codec-e2e/wrong-key", TaskQueue: e2eQueue},
		echoWorkflow, echoInput{User: "alice", Notebook: markerInput})
	if err != nil {
		t.Fatal(err)
	}

	cli, err := devserver.FindCLI()
	if err != nil {
		t.Fatal(err)
	}
	reason := func(out string) bool {
		return strings.Contains(out, "could not decrypt") && strings.Contains(out, sealKey.ID()) &&
			strings.Contains(out, serveKey.ID()) && strings.Contains(out, "not configured")
	}
	// JSON output shows payload data in base64: the reason's first bytes,
	// a multiple of 3 long, are a prefix of its base64.
	reasonPrefix := []byte(`"codec server could not decrypt this payload: codec: sealed with key ` + sealKey.ID() + `;`)
	reasonB64 := base64.StdEncoding.EncodeToString(reasonPrefix[:len(reasonPrefix)/3*3])
	for _, tc := range []struct {
		args  []string
		shows func(string) bool // nil: this output shows no payload
	}{
		{args: []string{"workflow", "show", "--detailed"}, shows: reason},
		{args: []string{"workflow", "show", "--output", "json"}, shows: func(out string) bool { return strings.Contains(out, reasonB64) }},
		{args: []string{"workflow", "show"}},
	} {
		args := append(tc.args, "--workflow-id", run.GetID(), "--address", srv.HostPort(), "--namespace", "default",
			"--codec-endpoint", "http://"+addr)
		cctx, ccancel := context.WithTimeout(ctx, 30*time.Second)
		start := time.Now()
		out, err := exec.CommandContext(cctx, cli, args...).CombinedOutput()
		took := time.Since(start)
		ccancel()
		name := "temporal " + strings.Join(tc.args, " ")
		t.Logf("%s: exit %v after %v", name, err, took.Round(time.Millisecond))
		if err != nil {
			t.Errorf("%s: %v\n%s", name, err, out)
		}
		if took > 5*time.Second {
			t.Errorf("%s took %v: the codec server's answer did not reach the user at once", name, took)
		}
		if tc.shows != nil && !tc.shows(string(out)) {
			t.Errorf("%s does not show the codec server's reason (naming keys %s and %s):\n%.3000s", name, sealKey.ID(), serveKey.ID(), out)
		}
	}
}
