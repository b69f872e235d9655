package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	graph "github.com/notebridge/notebridge/emulator/graph"
	"github.com/notebridge/notebridge/limiter/entity"
	"github.com/notebridge/notebridge/workflows"
)

func TestDiag(t *testing.T) {
	if os.Getenv("E2E_DIAG") == "" {
		t.Skip()
	}
	ctx := context.Background()
	root, _ := filepath.Abs("../..")
	h := &Harness{Root: root, Dir: "/tmp/e2ediag", Log: slog.Default()}
	if err := h.Build(ctx); err != nil {
		t.Fatal(err)
	}
	u := User{Name: "seed", Spec: graph.GenSpec{Seed: 1, Owner: "seed", Notebooks: 1, SectionsPerContainer: 3, PagesPerSection: 100, ImagesPerPage: 1, AttachmentsPerPage: 1}}
	st, err := h.Start(ctx, StackConfig{Name: "diag", Profile: "onenote-x30", Scale: 30, Users: []User{u}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Stop()
	m, err := st.StartMigration(ctx, u.Name, MigrateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		time.Sleep(10 * time.Second)
		log := st.GraphLog(m.Started)
		v, err := st.C.QueryWorkflow(ctx, entity.WorkflowID(workflows.LimiterResource, st.App), "", entity.QueryState)
		var state json.RawMessage
		if err == nil {
			_ = v.Get(&state)
		}
		s := string(state)
		if len(s) > 1500 {
			s = s[:1500]
		}
		fmt.Printf("t=%ds emulator requests=%d pages=%d\nlimiter=%s\n\n", (i+1)*10, len(log), len(st.PagesDone(m.Started)), s)
	}
}
