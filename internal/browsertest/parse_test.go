package browsertest

import (
	"os"
	"slices"
	"strings"
	"testing"
)

const sampleSummary = `==> starting the Temporal dev server on 127.0.0.1:35905 (Web UI http://127.0.0.1:36905)
[####################] 32/32 pages  failed 0

Summary of migrate/alice/1-E5B800A4757FAA89!101
  pages migrated:      32 of 32 (0 already there)
  pages failed:        0 (sections failed: 0)
  Temporal Web UI:     http://127.0.0.1:36905/namespaces/default/workflows/migrate%2Falice%2F1-E5B800A4757FAA89%21101
  Notion (emulator):   http://127.0.0.1:42225/_emulator/view
  logs:                /tmp/x/logs

Everything keeps running so you can browse the addresses above. Press Ctrl-C to stop.
`

func TestParseDemoOutput(t *testing.T) {
	const ui = "http://127.0.0.1:36905/namespaces/default/workflows/migrate%2Falice%2F1-E5B800A4757FAA89%21101"
	const view = "http://127.0.0.1:42225/_emulator/view"
	tests := []struct {
		name    string
		out     string
		ok      bool
		want    demoSummary
		wantErr string
	}{
		{"whole summary", sampleSummary, true,
			demoSummary{WorkflowID: "migrate/alice/1-E5B800A4757FAA89!101", UIURL: ui, ViewURL: view, Migrated: 32}, ""},
		{"still migrating", strings.Split(sampleSummary, "Summary of")[0], false, demoSummary{}, ""},
		{"Web UI line but no view yet", strings.Split(sampleSummary, "  Notion (")[0], false, demoSummary{}, ""},
		{"no Summary line: ID from the Web UI address, CRLF endings",
			"  Temporal Web UI: " + ui + "\r\n  Notion (emulator): " + view + "\r\n", true,
			demoSummary{WorkflowID: "migrate/alice/1-E5B800A4757FAA89!101", UIURL: ui, ViewURL: view, Migrated: -1}, ""},
		{"no workflow anywhere",
			"Temporal Web UI: http://127.0.0.1:1/namespaces/default\nNotion (emulator): " + view + "\n", false,
			demoSummary{}, "names no workflow"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok, err := parseDemoOutput(tc.out)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || ok != tc.ok {
				t.Fatalf("ok, err = %v, %v; want %v, nil", ok, err, tc.ok)
			}
			if ok && got != tc.want {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestParseStat(t *testing.T) {
	tests := []struct {
		in   string
		want Process
		ok   bool
	}{
		{"42 (worker) S 1 42 42 0 -1 4194560", Process{PID: 42, PPID: 1, PGID: 42, State: 'S'}, true},
		{"7 (a (b) c) Z 3 5 5 0", Process{PID: 7, PPID: 3, PGID: 5, State: 'Z'}, true},
		{"7 (no closing paren S 3 5", Process{}, false},
		{"7 (x) S", Process{}, false},
		{"7 (x) S one 5", Process{}, false},
	}
	for _, tc := range tests {
		got, ok := parseStat(7, []byte(tc.in))
		if tc.ok {
			tc.want.PID = 7
		}
		if ok != tc.ok || got != tc.want {
			t.Errorf("parseStat(%q) = %+v, %v; want %+v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestProcessesFindsThisProcess(t *testing.T) {
	ps, err := Processes()
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(ps, func(p Process) bool { return p.PID == os.Getpid() })
	if i < 0 {
		t.Fatalf("this process (%d) is not among %d listed", os.Getpid(), len(ps))
	}
	if p := ps[i]; p.PPID != os.Getppid() || p.Zombie() || !strings.Contains(p.Cmdline, "browsertest") {
		t.Errorf("this process is listed as %+v", p)
	}
}

func TestSameTitle(t *testing.T) {
	tests := []struct {
		text, title string
		want        bool
	}{
		{"Meetings 1", "Meetings 1", true},
		{"  Meetings\n 1 ", "Meetings  1", true},
		{"▦ Journal 1", "Journal 1", true},
		{"Untitled", "", true},
		{"Meetings 10", "Meetings 1", false},
		{"X Journal 1", "Journal 1", false},
		{"▦ Journal 1", "Journal", false},
	}
	for _, tc := range tests {
		if got := sameTitle(tc.text, tc.title); got != tc.want {
			t.Errorf("sameTitle(%q, %q) = %v, want %v", tc.text, tc.title, got, tc.want)
		}
	}
}

func TestWalkExportAndMissingLinks(t *testing.T) {
	ws := []exportPage{{
		ID: "root", Title: "Root",
		Pages: []exportPage{{ID: "nb", Title: "Notebook", Databases: []exportDatabase{
			{ID: "db1", Title: "Section", Rows: []exportPage{
				{ID: "r1", Title: "Page 1"},
				{ID: "r2", Title: "Gone", Archived: true},
				{ID: "r3", Title: "Page 10", Databases: []exportDatabase{{ID: "db3", Title: "Nested", Rows: []exportPage{{ID: "r4", Title: "Deep"}}}}},
			}},
			{ID: "db2", Title: "Old section", Archived: true, Rows: []exportPage{{ID: "r5", Title: "Old"}}},
		}}},
	}, {ID: "trash", Title: "Trash", Archived: true}}
	var nav []navItem
	var dbs []migrated
	walkExport(ws, true, &nav, &dbs)
	wantNav := []navItem{{"root", "Root"}, {"nb", "Notebook"}, {"db1", "Section"}}
	if !slices.Equal(nav, wantNav) {
		t.Errorf("nav = %v, want %v", nav, wantNav)
	}
	if len(dbs) != 2 || dbs[0].DB.ID != "db1" || len(dbs[0].Rows) != 2 || dbs[1].DB.ID != "db3" || len(dbs[1].Rows) != 1 {
		t.Errorf("migrated databases = %+v, want db1 with r1 and r3, db3 with r4", dbs)
	}

	links := []Link{
		{Href: "http://h/_emulator/view/R1", Text: "Page 1"},
		{Href: "http://h/_emulator/view/r3", Text: "Page 10"},
		{Href: "http://h/elsewhere/r4", Text: "Deep"},
	}
	items := []navItem{{"r1", "Page 1"}, {"r3", "Page 10"}, {"r4", "Deep"}, {"r9", "Page 1"}}
	missing := missingLinks(links, items)
	if len(missing) != 2 || !strings.Contains(missing[0], "r4") || !strings.Contains(missing[1], "r9") {
		t.Errorf("missing = %v, want r4 (linked elsewhere) and r9 (a title shown under another ID)", missing)
	}
}

func TestLinksToWorkflow(t *testing.T) {
	const id = "migrate/alice/1-E5B800A4757FAA89!101"
	tests := []struct {
		l    Link
		want bool
	}{
		{Link{"http://h/namespaces/default/workflows/migrate%2Falice%2F1-E5B800A4757FAA89%21101/01a2/history", id}, true},
		{Link{"http://h/namespaces/default/workflows/migrate%2Falice%2F1-E5B800A4757FAA89!101", "  " + id + " "}, true},
		{Link{"http://h/namespaces/default/workflows/migrate%2Falice%2F1-E5B800A4757FAA89%21101/01a2/history", "01a2"}, false},
		{Link{"http://h/namespaces/default/workflows/migrate%2Falice%2F1-E5B800A4757FAA89%211010", id + "0"}, false},
		{Link{"http://h/namespaces/default/workflows?query=WorkflowId%3D%22migrate%22", id}, false},
	}
	for _, tc := range tests {
		if got := linksToWorkflow(tc.l, id); got != tc.want {
			t.Errorf("linksToWorkflow(%+v) = %v, want %v", tc.l, got, tc.want)
		}
	}
}
