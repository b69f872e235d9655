package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"

	"github.com/notebridge/notebridge/auth"
	"github.com/notebridge/notebridge/codec"
	notionemu "github.com/notebridge/notebridge/emulator/notion"
	"github.com/notebridge/notebridge/internal/devserver"
	"github.com/notebridge/notebridge/internal/progress"
	"github.com/notebridge/notebridge/internal/shell"
	"github.com/notebridge/notebridge/internal/stack"
	lossreport "github.com/notebridge/notebridge/report"
	"github.com/notebridge/notebridge/workflows"
)

// Result is what a demo run did, as its summary prints it.
type Result struct {
	WorkflowID string
	// Pages is the notebook's page count; Written, Skipped and Failed
	// come from the workflow's report.
	Pages, Written, Skipped, Failed int
	FailedSections                  int
	// Outcome is what was lost, approximated and verified, the lines
	// the notebook's current details in the Web UI show
	// (workflows.Outcome), the verification's with its Notion reads
	// ("160 of 160 pages verified (640 Notion reads)").
	Outcome  []lossreport.Line
	Duration time.Duration
	// Permits and PermitsWaited are the Graph permits the workflows
	// took and their wait, from the report: the progress line's figures.
	Permits       int
	PermitsWaited time.Duration
	// GraphRequests, Graph429s and Violations come from the Graph
	// emulator (zero with -real).
	GraphRequests, Graph429s int64
	Violations               int
	// NotionPages counts the migrated pages the Notion emulator holds:
	// live rows of the section databases in its export.
	NotionPages int
	UIURL       string
	ViewURL     string
	// PIDs are the process IDs (and process groups) of the children.
	PIDs []int
}

// demo is one run.
type demo struct {
	opts  options
	out   io.Writer
	procs *children

	temporalAddr, uiURL string
	graphURL, notionURL string // emulator roots (empty with -real)
	notionToken         string
	notionParent        string
	tc                  client.Client
}

func (d *demo) logDir() string { return filepath.Join(d.opts.dir, "logs") }

func (d *demo) say(format string, args ...any) { fmt.Fprintf(d.out, "==> "+format+"\n", args...) }

func (d *demo) run(ctx context.Context) (res *Result, err error) {
	defer func() {
		if d.tc != nil {
			d.tc.Close()
		}
		if len(d.procs.pids()) > 0 {
			d.say("stopping %d processes", len(d.procs.pids()))
			d.procs.stopAll(10 * time.Second)
		}
	}()
	if err := d.prepare(ctx); err != nil {
		return nil, err
	}
	if err := d.startTemporal(ctx); err != nil {
		return nil, err
	}
	if !d.opts.real {
		if err := d.startEmulators(ctx); err != nil {
			return nil, err
		}
	}
	if err := d.login(ctx); err != nil {
		return nil, err
	}
	if err := d.startWorker(); err != nil {
		return nil, err
	}
	nb, err := d.scan(ctx)
	if err != nil {
		return nil, err
	}
	res = &Result{WorkflowID: workflows.NotebookWorkflowID(d.opts.user, nb.ID), Pages: nb.Pages}
	res.UIURL = d.uiURL + "/namespaces/default/workflows/" + url.PathEscape(res.WorkflowID)
	if d.notionURL != "" {
		res.ViewURL = d.notionURL + "/_emulator/view"
	}
	if !d.opts.real {
		scaled := func(w time.Duration) time.Duration {
			return time.Duration(float64(w) / d.opts.scale).Round(time.Millisecond)
		}
		d.say("pacing: Graph allows %s 120 requests per %s (a minute), 400 per %s (an hour), 5 at once; the limiter spends that budget",
			d.opts.user, scaled(time.Minute), scaled(time.Hour))
	}
	start := time.Now()
	if err := d.startMigration(ctx, res.WorkflowID, nb); err != nil {
		return res, err
	}
	report, err := d.follow(ctx, res.WorkflowID, nb)
	if err != nil {
		return res, err
	}
	res.Duration = time.Since(start)
	res.Written, res.Skipped, res.Failed, res.FailedSections = report.Written, report.Skipped, report.FailedPages, report.FailedSections
	res.Permits, res.PermitsWaited = report.Permits, report.PermitsWaited.D()
	res.Outcome = outcomeLines(report)
	if report.Pages > 0 {
		res.Pages = report.Pages
	}
	if err := d.collect(ctx, res); err != nil {
		return res, err
	}
	d.printSummary(res)
	var problems []string
	if res.Failed > 0 || res.FailedSections > 0 {
		problems = append(problems, fmt.Sprintf("%d pages and %d sections failed", res.Failed, res.FailedSections))
	}
	if res.Violations > 0 {
		problems = append(problems, fmt.Sprintf("%d Graph limit violations", res.Violations))
	}
	if d.notionURL != "" && res.NotionPages != res.Written+res.Skipped {
		problems = append(problems, fmt.Sprintf("the Notion emulator holds %d pages, the workflow reports %d", res.NotionPages, res.Written+res.Skipped))
	}
	if v := report.Verification; v != nil && v.Differs > 0 {
		problems = append(problems, fmt.Sprintf("%d pages read back differently from what was written", v.Differs))
	}
	if len(problems) > 0 {
		err := fmt.Errorf("the migration was not clean: %s", strings.Join(problems, "; "))
		if d.opts.exit {
			return res, err
		}
		fmt.Fprintf(d.out, "\nWARNING: %v\n", err)
	} else if d.opts.exit {
		return res, nil
	}
	fmt.Fprintf(d.out, "\nEverything keeps running so you can browse the addresses above. Press Ctrl-C to stop.\n")
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	select {
	case <-ctx.Done():
		fmt.Fprintln(d.out)
	case <-d.anyExit(wctx):
	}
	return res, nil
}

// anyExit is closed when any child exits on its own, and ends quietly
// with ctx.
func (d *demo) anyExit(ctx context.Context) <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		for {
			for _, c := range d.procs.list() {
				if done, err := c.Exited(); done && ctx.Err() == nil {
					d.say("%v; stopping", err)
					return
				}
			}
			if stack.Sleep(ctx, time.Second) != nil {
				return
			}
		}
	}()
	return ch
}

// prepare makes a fresh work directory and builds the binaries.
func (d *demo) prepare(ctx context.Context) error {
	if err := os.RemoveAll(d.opts.dir); err != nil {
		return fmt.Errorf("remove old work directory: %w", err)
	}
	for _, sub := range []string{"tokens", "staging", "logs"} {
		if err := os.MkdirAll(filepath.Join(d.opts.dir, sub), 0o700); err != nil {
			return fmt.Errorf("work directory: %w", err)
		}
	}
	if _, err := os.Stat(filepath.Join(d.opts.bin, "temporal")); err != nil {
		return fmt.Errorf("no temporal CLI in %s: run `make temporal` first: %w", d.opts.bin, err)
	}
	if d.opts.noBuild {
		return nil
	}
	d.say("building the worker, the starter CLI and the emulators into %s", d.opts.bin)
	return stack.Build(ctx, d.opts.root, d.opts.bin, "./worker", "./starter", "./emulator/cmd/graph-emulator", "./emulator/cmd/notion-emulator")
}

// freePortPair returns a free port p with p+1000 also free (Temporal's
// frontend and its Web UI).
func freePortPair() (int, error) {
	for range 50 {
		p, err := devserver.FreePort()
		if err != nil {
			return 0, err
		}
		if p+1000 > 65535 {
			continue
		}
		if ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p+1000)); err == nil {
			ln.Close()
			return p, nil
		}
	}
	return 0, errors.New("no free pair of loopback ports p and p+1000")
}

// startTemporal starts the dev server and waits until it serves clients and
// the Web UI. A server that exits while starting is started again on fresh
// ports, up to devserver.StartAttempts times: ports found free can be taken
// before the server binds them (tests running beside the demo take many).
func (d *demo) startTemporal(ctx context.Context) error {
	var errs []error
	for range devserver.StartAttempts {
		err := d.startTemporalOnce(ctx)
		if err == nil {
			return nil
		}
		errs = append(errs, err)
		if !errors.Is(err, devserver.ErrExited) {
			break
		}
		d.say("the dev server exited while starting; trying fresh ports")
	}
	return errors.Join(errs...)
}

func (d *demo) startTemporalOnce(ctx context.Context) error {
	if d.tc != nil {
		d.tc.Close()
		d.tc = nil
	}
	if err := os.Remove(filepath.Join(d.opts.dir, "temporal.db")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove the dev server's database of a failed start: %w", err)
	}
	p, err := freePortPair()
	if err != nil {
		return err
	}
	d.temporalAddr = "127.0.0.1:" + strconv.Itoa(p)
	d.uiURL = "http://127.0.0.1:" + strconv.Itoa(p+1000)
	args := []string{"server", "start-dev", "--ip", "127.0.0.1", "--port", strconv.Itoa(p),
		"--ui-port", strconv.Itoa(p + 1000), "--db-filename", filepath.Join(d.opts.dir, "temporal.db"),
		"--dynamic-config-value", "system.forceSearchAttributesCacheRefreshOnRead=true"}
	for _, kv := range devserver.LowLatencyConfig() {
		args = append(args, "--dynamic-config-value", kv)
	}
	for _, name := range []string{"NoteBridgeUser", "NoteBridgeNotebook", "NoteBridgeStatus"} {
		args = append(args, "--search-attribute", name+"=Keyword")
	}
	d.say("starting the Temporal dev server on %s (Web UI %s)", d.temporalAddr, d.uiURL)
	c, err := d.procs.start("temporal", d.logDir(), filepath.Join(d.opts.bin, "temporal"), args, nil)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(90 * time.Second)
	for {
		if done, err := c.Exited(); done {
			return fmt.Errorf("temporal dev server on %s: %w: %w\n%s", d.temporalAddr, devserver.ErrExited, err, tail(filepath.Join(d.logDir(), "temporal.err"), 2000))
		}
		if d.tc == nil {
			tc, err := client.Dial(client.Options{HostPort: d.temporalAddr, Namespace: "default",
				Logger: tlog.NewStructuredLogger(slog.New(slog.DiscardHandler))})
			if err == nil {
				d.tc = tc
			}
		}
		if d.tc != nil {
			hctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			_, herr := d.tc.CheckHealth(hctx, &client.CheckHealthRequest{})
			cancel()
			if herr == nil && httpOK(ctx, d.uiURL) {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return errors.New("the Temporal dev server was not ready within 90s")
		}
		if err := stack.Sleep(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
}

func (d *demo) startEmulators(ctx context.Context) error {
	gp, err := devserver.FreePort()
	if err != nil {
		return err
	}
	np, err := devserver.FreePort()
	if err != nil {
		return err
	}
	d.graphURL = "http://127.0.0.1:" + strconv.Itoa(gp)
	d.notionURL = "http://127.0.0.1:" + strconv.Itoa(np)
	scale := strconv.FormatFloat(d.opts.scale, 'g', -1, 64)
	gargs := []string{"-addr", "127.0.0.1:" + strconv.Itoa(gp), "-users", d.opts.user, "-seed", "1",
		"-notebooks", "1", "-group-depth", "1", "-groups-per-level", "1", "-sections", "2",
		"-pages", strconv.Itoa(d.opts.pages), "-subpage-levels", "2", "-images", "1", "-attachments", "1",
		"-links", "1", "-time-scale", scale}
	d.say("starting the Graph emulator on %s: 1 notebook, 4 sections (2 in a section group), %d pages each, time scale %s",
		d.graphURL, d.opts.pages, scale)
	g, err := d.procs.start("graph-emulator", d.logDir(), filepath.Join(d.opts.bin, "graph-emulator"), gargs, nil)
	if err != nil {
		return err
	}
	if _, err = waitForLine(ctx, g, filepath.Join(d.logDir(), "graph-emulator.log"), "Device login:", 30*time.Second); err != nil {
		return err
	}

	rate := strconv.FormatFloat(d.opts.notionRate, 'g', -1, 64)
	d.say("starting the Notion emulator on %s (%s requests/s)", d.notionURL, rate)
	// The demo makes the integration token itself, so it is never in the
	// emulator's log (the emulator prints only tokens it issues).
	if d.notionToken, err = demoNotionToken(); err != nil {
		return err
	}
	n, err := d.procs.start("notion-emulator", d.logDir(), filepath.Join(d.opts.bin, "notion-emulator"),
		[]string{"-addr", "127.0.0.1:" + strconv.Itoa(np), "-rate", rate, "-burst", rate, "-token", d.notionToken}, nil)
	if err != nil {
		return err
	}
	nlog := filepath.Join(d.logDir(), "notion-emulator.log")
	if d.notionParent, err = waitForLine(ctx, n, nlog, "root page:", 30*time.Second); err != nil {
		return err
	}
	for _, u := range []string{d.graphURL + "/_emulator/stats", d.notionURL + "/_emulator/stats"} {
		if !httpOK(ctx, u) {
			return fmt.Errorf("emulator not answering at %s", u)
		}
	}
	return nil
}

func (d *demo) startWorker() error {
	graphURL, notionURL := d.graphURL+"/v1.0", d.notionURL
	// Against the emulators, payloads stay unencrypted whatever the
	// operator's shell holds: the demo runs no codec server and starts the
	// migration with the plain temporal CLI, which a worker with a payload
	// key refuses (codec.ErrPlaintext).
	env := []string{"NOTION_TOKEN=" + d.notionToken, "NOTION_TOKEN_FILE=", auth.EnvTokenKey + "=",
		codec.EnvKey + "=", "NOTEBRIDGE_CODEC_KEY_FILE="}
	if d.opts.real {
		e := d.opts.realEnv
		graphURL, notionURL = e.GraphURL, e.NotionURL
		d.notionToken, d.notionParent = e.NotionToken, e.NotionParent
		// The operator's own NOTEBRIDGE_TOKEN_KEY, if set, is the key.
		env = []string{"NOTION_TOKEN=" + d.notionToken, "NOTION_TOKEN_FILE="}
	}
	s := d.signIn()
	args := stack.WorkerFlags{TemporalAddress: d.temporalAddr, App: s.appID,
		StagingDir: filepath.Join(d.opts.dir, "staging"), GraphURL: graphURL, NotionURL: notionURL, Limits: d.limits(),
		NotionRate: d.opts.notionRate,
		Tokens:     []string{"-token-dir", s.tokenDir, "-token-key-file", s.keyFile, "-tenant", s.tenant, "-authority", s.authority}}.Args()
	d.say("starting the worker: worker %s", strings.Join(args, " "))
	_, err := d.procs.start("worker", d.logDir(), filepath.Join(d.opts.bin, "worker"), args, env)
	return err
}

func (d *demo) limits() string {
	if d.opts.real {
		return "onenote"
	}
	return stack.Limits(d.opts.scale)
}

// scan runs ScanNotebooks (under the limiter, like every Graph call) and
// picks the notebook to migrate.
func (d *demo) scan(ctx context.Context) (workflows.NotebookScan, error) {
	d.say("scanning %s's notebooks (ScanNotebooks)", d.opts.user)
	sctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	run, err := d.tc.ExecuteWorkflow(sctx, client.StartWorkflowOptions{
		ID: "scan/" + d.opts.user, TaskQueue: "notebridge",
	}, workflows.ScanNotebooksName, workflows.ScanInput{User: d.opts.user, Limits: d.limits()})
	if err != nil {
		return workflows.NotebookScan{}, fmt.Errorf("start ScanNotebooks: %w", err)
	}
	var sr workflows.ScanResult
	if err := run.Get(sctx, &sr); err != nil {
		return workflows.NotebookScan{}, fmt.Errorf("ScanNotebooks: %w", err)
	}
	for _, nb := range sr.Notebooks {
		if want := d.opts.realEnv.Notebook; want == "" || want == nb.ID || want == nb.Name {
			fmt.Fprintf(d.out, "    notebook %q (%s): %d sections, %d pages, about %d Graph requests (%d to %d: 0 to %d images and attachments a page)\n",
				nb.Name, nb.ID, len(nb.Sections), nb.Pages, nb.Requests, nb.RequestsLow, nb.RequestsHigh, workflows.HighResourcesPerPage)
			for _, s := range nb.Sections {
				fmt.Fprintf(d.out, "      %-40s %3d pages (%d subpages)\n", s.Path, s.Pages, s.Subpages)
			}
			return nb, nil
		}
	}
	return workflows.NotebookScan{}, fmt.Errorf("no notebook %q among %d of %s", d.opts.realEnv.Notebook, len(sr.Notebooks), d.opts.user)
}

// startMigration starts MigrateNotebook with the temporal CLI and prints
// the exact command.
func (d *demo) startMigration(ctx context.Context, id string, nb workflows.NotebookScan) error {
	in := workflows.MigrateInput{User: d.opts.user, Notebook: nb.ID, NotionParent: d.notionParent, Limits: d.limits()}
	start, err := workflows.StartCommand("notebridge", nb.ID, nb.Name, in)
	if err != nil {
		return err
	}
	if want := workflows.NotebookWorkflowID(in.User, nb.ID); want != id {
		return fmt.Errorf("workflow ID %s, the start gives %s", id, want)
	}
	cli := filepath.Join(d.opts.bin, "temporal")
	args := append(append(start[:2:2], "--address", d.temporalAddr, "--namespace", "default"), start[2:]...)
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = shellQuote(a)
	}
	d.say("starting the migration with the temporal CLI:\n    %s %s", d.relBin("temporal"), strings.Join(quoted, " "))
	cmd := exec.CommandContext(ctx, cli, args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("temporal workflow start: %w\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fmt.Fprintf(d.out, "    %s\n", line)
	}
	return nil
}

// relBin is the path of a binary in -bin, relative to the module root
// when it is inside it.
func (d *demo) relBin(name string) string {
	p := filepath.Join(d.opts.bin, name)
	rel, err := filepath.Rel(d.opts.root, p)
	if err != nil || strings.HasPrefix(rel, "..") {
		return p
	}
	return rel
}

// shellQuote quotes s for a shell (shell.Quote, the one rule).
func shellQuote(s string) string { return shell.Quote(s) }

// graphStats is the part of the Graph emulator's /_emulator/stats the
// demo shows.
type graphStats struct {
	Requests  int64            `json:"requests"`
	Throttled int64            `json:"throttled"`
	ByStatus  map[string]int64 `json:"byStatus"`
}

func (d *demo) graphStats(ctx context.Context) (graphStats, error) {
	var s graphStats
	err := getJSON(ctx, d.graphURL+"/_emulator/stats", &s)
	return s, err
}

// follow prints the migration's progress every second (the line of
// `starter status --follow`, internal/progress, with the Graph emulator's
// counts) and returns the report once the workflow completed. A notebook
// that waits with failed sections is told to finish, so the demo ends.
func (d *demo) follow(ctx context.Context, id string, nb workflows.NotebookScan) (workflows.NotebookReport, error) {
	var report workflows.NotebookReport
	g := &progress.Gatherer{Client: d.tc, ID: id, App: d.signIn().appID}
	scan := progress.ScanPages(&nb)
	tty := progress.IsTerminal(d.out)
	last, finishSent := "", false
	var counts progress.Tracker
	for {
		snap, err := g.Gather(ctx)
		if err != nil {
			return report, err
		}
		t := counts.Next(snap, scan)
		line, key := progress.Bar(t, 30)+" "+progress.Line(snap, t)+d.graphCounts(ctx), progress.Key(snap, t)
		switch {
		case tty:
			fmt.Fprintf(d.out, "\r\033[K%s", progress.Fit(line, progress.Width(d.out)))
		case key != last:
			fmt.Fprintln(d.out, line)
		}
		last = key
		if !snap.Running() {
			if tty {
				fmt.Fprintln(d.out)
			}
			if snap.Report == nil {
				return report, fmt.Errorf("%s ended %s: %w", id, progress.StatusName(snap.Status), snap.Failure)
			}
			return *snap.Report, nil
		}
		p := snap.Progress
		if snap.Waiting() && !finishSent && d.opts.real {
			fmt.Fprintf(d.out, "\n    %d sections failed; the workflow waits. Retry or finish it with:\n"+
				"      bin/temporal workflow update execute --address %s -w %s --name retry-failed\n"+
				"      bin/temporal workflow update execute --address %s -w %s --name finish\n",
				p.Failed, d.temporalAddr, shellQuote(id), d.temporalAddr, shellQuote(id))
			finishSent = true
		}
		if snap.Waiting() && !finishSent {
			fmt.Fprintf(d.out, "\n    %d sections failed; the workflow waits for retry-section, retry-failed or finish. Sending finish.\n", p.Failed)
			if _, err := workflows.Finish(ctx, d.tc, id); err != nil {
				return report, err
			}
			finishSent = true
		}
		if err := stack.Sleep(ctx, time.Second); err != nil {
			return report, err
		}
	}
}

// graphCounts is the Graph emulator's request and 429 counts, for the
// progress line ("" with -real).
func (d *demo) graphCounts(ctx context.Context) string {
	if d.graphURL == "" {
		return ""
	}
	s, err := d.graphStats(ctx)
	if err != nil {
		return ""
	}
	return fmt.Sprintf(" | emulator: Graph requests %d, 429s %d", s.Requests, s.ByStatus["429"])
}

// collect fills the emulators' figures into res and saves the Notion
// export into the work directory.
func (d *demo) collect(ctx context.Context, res *Result) error {
	if d.graphURL == "" {
		return nil
	}
	s, err := d.graphStats(ctx)
	if err != nil {
		return err
	}
	res.GraphRequests, res.Graph429s = s.Requests, s.ByStatus["429"]
	var v struct {
		Violations []json.RawMessage `json:"violations"`
	}
	if err := getJSON(ctx, d.graphURL+"/_emulator/violations", &v); err != nil {
		return err
	}
	res.Violations = len(v.Violations)
	raw, err := getBytes(ctx, d.notionURL+"/_emulator/export")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(d.opts.dir, "notion-export.json"), raw, 0o600); err != nil {
		return fmt.Errorf("save export: %w", err)
	}
	var ws notionemu.Workspace
	if err := json.Unmarshal(raw, &ws); err != nil {
		return fmt.Errorf("decode Notion export: %w", err)
	}
	res.NotionPages = stack.CountRows(ws.Pages)
	return nil
}

func (d *demo) printSummary(r *Result) {
	w := d.out
	fmt.Fprintf(w, "\nSummary of %s\n", r.WorkflowID)
	fmt.Fprintf(w, "  pages migrated:      %d of %d (%d already there)\n", r.Written+r.Skipped, r.Pages, r.Skipped)
	fmt.Fprintf(w, "  pages failed:        %d (sections failed: %d)\n", r.Failed, r.FailedSections)
	for _, l := range r.Outcome {
		fmt.Fprintf(w, "  %-20s %s\n", strings.ToLower(l.Label)+":", l.Text)
	}
	fmt.Fprintf(w, "  duration:            %s\n", r.Duration.Round(time.Second))
	fmt.Fprintf(w, "  Graph permits:       %d, waited %s (the workflows' count, as the progress line)\n", r.Permits,
		progress.ShortDur(r.PermitsWaited.Round(100*time.Millisecond)))
	if d.graphURL != "" {
		fmt.Fprintf(w, "  Graph requests:      %d (429s: %d; the Graph emulator's count)\n", r.GraphRequests, r.Graph429s)
		fmt.Fprintf(w, "  Graph violations:    %d\n", r.Violations)
		fmt.Fprintf(w, "  pages in Notion:     %d (rows in the emulator's export, saved to %s)\n",
			r.NotionPages, filepath.Join(d.opts.dir, "notion-export.json"))
	}
	fmt.Fprintf(w, "  Temporal Web UI:     %s\n", r.UIURL)
	fmt.Fprintf(w, "  operator CLI:        %s status -temporal-address %s -w %s\n",
		shellQuote(d.relBin("starter")), shellQuote(d.temporalAddr), shellQuote(r.WorkflowID))
	if line := d.reportCommand(r.WorkflowID); line != "" {
		fmt.Fprintf(w, "  loss report (JSON):  %s\n", line)
	}
	if r.ViewURL != "" {
		fmt.Fprintf(w, "  Notion (emulator):   %s\n", r.ViewURL)
	}
	fmt.Fprintf(w, "  logs:                %s\n", d.logDir())
}

// reportCommand is the starter report command for the demo's migration,
// with the Notion emulator's URL and the demo's token (in a file only the
// user can read, never printed) as the worker has them; "" with real
// Notion, whose settings the person already holds.
func (d *demo) reportCommand(id string) string {
	if d.notionURL == "" {
		return ""
	}
	file := filepath.Join(d.opts.dir, "notion-token")
	if err := os.WriteFile(file, []byte(d.notionToken), 0o600); err != nil {
		return ""
	}
	return shell.Join("env", "NOTEBRIDGE_NOTION_URL="+d.notionURL, "NOTION_TOKEN_FILE="+file, d.relBin("starter"), "report",
		"-temporal-address", d.temporalAddr, "-w", id)
}

// outcomeLines is the report's losses, approximations and verification
// as the notebook's current details say them (one wording), the
// verification with the Notion reads this run's read-backs cost.
func outcomeLines(rep workflows.NotebookReport) []lossreport.Line {
	o := rep.Outcome()
	if o == nil {
		return nil
	}
	lines := o.Lines()
	for i, l := range lines {
		if l.Label == "Verification" && o.Verification != nil && !o.VerifySkipped {
			lines[i].Text += fmt.Sprintf(" (%d Notion reads)", rep.VerifyReads)
		}
	}
	return lines
}

func getBytes(ctx context.Context, u string) ([]byte, error) {
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	return b, nil
}

func getJSON(ctx context.Context, u string, v any) error {
	b, err := getBytes(ctx, u)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	return nil
}

func httpOK(ctx context.Context, u string) bool {
	_, err := getBytes(ctx, u)
	return err == nil
}

// demoNotionToken returns a fresh random integration token for the Notion
// emulator.
func demoNotionToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("demo: make a Notion token: %w", err)
	}
	return "secret_demo_" + hex.EncodeToString(b), nil
}
