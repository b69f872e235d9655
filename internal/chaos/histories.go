package chaos

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// HistoryExport is what exporting every history of the namespace found.
type HistoryExport struct {
	// Runs counts the workflow executions (runs) exported; Events their
	// events; Bytes the JSON written.
	Runs, Events int
	Bytes        int64
	// Dir holds one JSON file per run ("" if not saved).
	Dir string
	// Leaks names each run whose history holds a secret, and which one
	// ("secret 1" is the first of the secrets searched, so a report never
	// prints a secret).
	Leaks []string
}

// exportHistories writes every run's history in the namespace as JSON
// into dir (if not empty) and searches it, and the payload bytes inside
// it decoded, for each secret.
func exportHistories(ctx context.Context, c client.Client, dir string, secrets []string) (HistoryExport, error) {
	out := HistoryExport{Dir: dir}
	if dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return out, fmt.Errorf("chaos: history directory: %w", err)
		}
	}
	var token []byte
	for {
		resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{PageSize: 500, NextPageToken: token})
		if err != nil {
			return out, fmt.Errorf("chaos: list workflows: %w", err)
		}
		for _, e := range resp.Executions {
			id, run := e.Execution.WorkflowId, e.Execution.RunId
			var hist historypb.History
			it := c.GetWorkflowHistory(ctx, id, run, false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
			for it.HasNext() {
				ev, err := it.Next()
				if err != nil {
					return out, fmt.Errorf("chaos: history of %s (run %s): %w", id, run, err)
				}
				hist.Events = append(hist.Events, ev)
			}
			js, err := protojson.Marshal(&hist)
			if err != nil {
				return out, fmt.Errorf("chaos: history of %s as JSON: %w", id, err)
			}
			out.Runs++
			out.Events += len(hist.Events)
			out.Bytes += int64(len(js))
			if dir != "" {
				name := strings.NewReplacer("/", "_", "\\", "_", ":", "_").Replace(id) + "_" + run + ".json"
				if err := os.WriteFile(filepath.Join(dir, name), js, 0o600); err != nil {
					return out, fmt.Errorf("chaos: save history: %w", err)
				}
			}
			// Payloads are base64 in JSON: search their bytes too.
			corpus := append(js, rawBytes(&hist)...)
			for i, s := range secrets {
				if s != "" && bytes.Contains(corpus, []byte(s)) {
					out.Leaks = append(out.Leaks, fmt.Sprintf("%s (run %s) holds secret %d", id, run, i+1))
				}
			}
		}
		token = resp.NextPageToken
		if len(token) == 0 {
			return out, nil
		}
	}
}

// rawBytes concatenates every bytes field of m, at any depth (payload
// data, failure details), separated by newlines.
func rawBytes(m proto.Message) []byte {
	var out []byte
	var walk func(m protoreflect.Message)
	value := func(fd protoreflect.FieldDescriptor, v protoreflect.Value) {
		switch fd.Kind() {
		case protoreflect.BytesKind:
			out = append(append(out, v.Bytes()...), '\n')
		case protoreflect.MessageKind, protoreflect.GroupKind:
			walk(v.Message())
		}
	}
	walk = func(m protoreflect.Message) {
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.IsList():
				l := v.List()
				for i := range l.Len() {
					value(fd, l.Get(i))
				}
			case fd.IsMap():
				v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
					value(fd.MapValue(), mv)
					return true
				})
			default:
				value(fd, v)
			}
			return true
		})
	}
	walk(m.ProtoReflect())
	return out
}
