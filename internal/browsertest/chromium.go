// Package browsertest drives a headless Chromium (Debian's chromium
// package) from Go tests, so a test can look at what a person would see:
// the Notion emulator's HTML view and the Temporal Web UI after a real
// migration.
//
// The browser is driven over the Chrome DevTools Protocol on a pipe
// (--remote-debugging-pipe: JSON messages ended by a NUL byte on file
// descriptors 3 and 4), so it needs no port, no WebSocket and no
// dependency beyond the standard library. Scripts run in the page: a test
// polls the rendered DOM with a deadline until what it expects appears,
// and saves PNG screenshots for a human to look at.
package browsertest

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// ErrNoChromium is returned (wrapped) by FindChromium when no Chromium is
// installed.
var ErrNoChromium = errors.New("no Chromium found: run make chromium (it installs Debian's chromium package)")

// DefaultBinary is where Debian's chromium package puts its launcher.
const DefaultBinary = "/usr/bin/chromium"

// FindChromium returns the Chromium launcher: DefaultBinary, else
// "chromium" on PATH. The error wraps ErrNoChromium.
func FindChromium() (string, error) {
	if st, err := os.Stat(DefaultBinary); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
		return DefaultBinary, nil
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("%w (looked for %s and chromium on PATH)", ErrNoChromium, DefaultBinary)
}

// Flags are the command-line flags every browser starts with: headless,
// no sandbox (tests run as root), no GPU, and nothing that reaches for
// the network on its own (this machine has none). Launch adds
// --remote-debugging-pipe, --user-data-dir and --window-size.
var Flags = []string{
	"--headless",
	"--no-sandbox",
	"--disable-gpu",
	"--disable-quic",
	"--no-first-run",
	"--no-default-browser-check",
	"--disable-background-networking",
	"--disable-component-update",
	"--disable-sync",
	"--disable-dev-shm-usage",
	"--disable-extensions",
	"--hide-scrollbars",
	"--mute-audio",
}

// Options configure Launch.
type Options struct {
	// Binary is the Chromium launcher; empty means FindChromium.
	Binary string
	// Dir is a fresh directory for the profile (--user-data-dir) and the
	// browser's log (chromium.log). Required.
	Dir string
	// Width and Height are the window size in CSS pixels (default
	// 1280x900).
	Width, Height int
}

// Browser is one running headless Chromium. Its methods are safe for
// concurrent use.
type Browser struct {
	cmd  *exec.Cmd
	in   *os.File // we write commands here (the browser's fd 3)
	out  *os.File // we read answers here (the browser's fd 4)
	done chan struct{}
	log  string

	wmu sync.Mutex // serializes writes

	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan message
	readErr error // why the reader stopped, once it has
	closed  bool

	width, height int
}

// message is one DevTools protocol message: a command, its answer, or an
// event.
type message struct {
	ID        int64           `json:"id,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    any             `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *ProtocolError  `json:"error,omitempty"`
}

// ProtocolError is an error the browser answered a command with.
type ProtocolError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    string `json:"data,omitempty"`
}

func (e *ProtocolError) Error() string {
	s := "devtools error " + strconv.Itoa(e.Code) + ": " + e.Message
	if e.Data != "" {
		s += " (" + e.Data + ")"
	}
	return s
}

// Launch starts a headless Chromium with Flags and a fresh profile in
// opts.Dir, in its own process group, and connects to it. Close it when
// done: that stops the browser and every process it started.
func Launch(ctx context.Context, opts Options) (*Browser, error) {
	if opts.Dir == "" {
		return nil, errors.New("browsertest: Options.Dir is empty: give a fresh directory for the profile")
	}
	bin := opts.Binary
	if bin == "" {
		var err error
		if bin, err = FindChromium(); err != nil {
			return nil, err
		}
	}
	if opts.Width <= 0 {
		opts.Width = 1280
	}
	if opts.Height <= 0 {
		opts.Height = 900
	}
	profile := filepath.Join(opts.Dir, "profile")
	if err := os.MkdirAll(profile, 0o700); err != nil {
		return nil, fmt.Errorf("browsertest: profile directory: %w", err)
	}
	logPath := filepath.Join(opts.Dir, "chromium.log")
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("browsertest: browser log: %w", err)
	}
	defer logf.Close()

	// The browser reads commands from fd 3 and writes answers to fd 4.
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("browsertest: pipe: %w", err)
	}
	ansR, ansW, err := os.Pipe()
	if err != nil {
		cmdR.Close()
		cmdW.Close()
		return nil, fmt.Errorf("browsertest: pipe: %w", err)
	}
	args := append(append([]string{}, Flags...),
		"--remote-debugging-pipe",
		"--user-data-dir="+profile,
		fmt.Sprintf("--window-size=%d,%d", opts.Width, opts.Height),
		"about:blank")
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.ExtraFiles = []*os.File{cmdR, ansW}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	// The child holds its own copies of its ends.
	cmdR.Close()
	ansW.Close()
	if err != nil {
		cmdW.Close()
		ansR.Close()
		return nil, fmt.Errorf("browsertest: start %s: %w", bin, err)
	}
	b := &Browser{cmd: cmd, in: cmdW, out: ansR, done: make(chan struct{}), log: logPath,
		pending: map[int64]chan message{}, width: opts.Width, height: opts.Height}
	go func() {
		_ = cmd.Wait()
		close(b.done)
	}()
	go b.read()

	// The first answer proves the pipe works.
	vctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var v struct {
		Product string `json:"product"`
	}
	if err := b.call(vctx, "", "Browser.getVersion", nil, &v); err != nil {
		b.Close()
		return nil, fmt.Errorf("browsertest: %s did not answer on the DevTools pipe: %w (its log: %s)", bin, err, logPath)
	}
	return b, nil
}

// PID is the browser's process ID, which is also its process group ID.
func (b *Browser) PID() int { return b.cmd.Process.Pid }

// read dispatches answers to their callers until the pipe closes.
func (b *Browser) read() {
	r := bufio.NewReaderSize(b.out, 1<<20)
	var err error
	for {
		var raw []byte
		raw, err = r.ReadBytes(0)
		if err != nil {
			break
		}
		var m message
		if jerr := json.Unmarshal(raw[:len(raw)-1], &m); jerr != nil || m.ID == 0 {
			continue // an event, or something we cannot read: nobody waits for it
		}
		b.mu.Lock()
		ch := b.pending[m.ID]
		delete(b.pending, m.ID)
		b.mu.Unlock()
		if ch != nil {
			ch <- m
		}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, os.ErrClosed) {
		err = errors.New("the browser closed the DevTools pipe")
	}
	b.mu.Lock()
	b.readErr = err
	for id, ch := range b.pending {
		close(ch)
		delete(b.pending, id)
	}
	b.mu.Unlock()
}

// call sends one command (to the browser, or to a page's session) and
// decodes its result into out (if not nil).
func (b *Browser) call(ctx context.Context, session, method string, params, out any) error {
	b.mu.Lock()
	if b.readErr != nil || b.closed {
		err := b.readErr
		b.mu.Unlock()
		if err == nil {
			err = errors.New("the browser is closed")
		}
		return fmt.Errorf("%s: %w", method, err)
	}
	b.nextID++
	id := b.nextID
	ch := make(chan message, 1)
	b.pending[id] = ch
	b.mu.Unlock()
	forget := func() {
		b.mu.Lock()
		delete(b.pending, id)
		b.mu.Unlock()
	}

	if params == nil {
		params = struct{}{}
	}
	raw, err := json.Marshal(message{ID: id, SessionID: session, Method: method, Params: params})
	if err != nil {
		forget()
		return fmt.Errorf("%s: encode: %w", method, err)
	}
	b.wmu.Lock()
	_, err = b.in.Write(append(raw, 0))
	b.wmu.Unlock()
	if err != nil {
		forget()
		return fmt.Errorf("%s: write to the browser: %w", method, err)
	}
	select {
	case m, ok := <-ch:
		if !ok {
			b.mu.Lock()
			err := b.readErr
			b.mu.Unlock()
			return fmt.Errorf("%s: %w", method, err)
		}
		if m.Error != nil {
			return fmt.Errorf("%s: %w", method, m.Error)
		}
		if out != nil && len(m.Result) > 0 {
			if err := json.Unmarshal(m.Result, out); err != nil {
				return fmt.Errorf("%s: decode result: %w", method, err)
			}
		}
		return nil
	case <-ctx.Done():
		forget()
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// Close asks the browser to exit, then stops its whole process group and
// waits until no process of it is left. It is safe to call more than once.
func (b *Browser) Close() error {
	b.mu.Lock()
	already := b.closed
	b.mu.Unlock()
	if !already {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = b.call(ctx, "", "Browser.close", nil, nil)
		cancel()
		b.mu.Lock()
		b.closed = true
		b.mu.Unlock()
	}
	pgid := b.cmd.Process.Pid
	select {
	case <-b.done:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-b.done
	}
	// The leader is gone; take down anything left in its group and wait
	// until nothing of it runs (dead orphans wait for init to reap them,
	// which can take seconds, so zombies do not count).
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	b.in.Close()
	b.out.Close()
	for deadline := time.Now().Add(10 * time.Second); ; {
		live, err := LiveInGroup(pgid)
		if err != nil {
			return fmt.Errorf("browsertest: close: %w", err)
		}
		if len(live) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("browsertest: %d processes of the browser's group %d are still running 10s after SIGKILL", len(live), pgid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Page is one browser tab.
type Page struct {
	b                 *Browser
	targetID, session string
}

// NewPage opens a blank tab.
func (b *Browser) NewPage(ctx context.Context) (*Page, error) {
	var t struct {
		TargetID string `json:"targetId"`
	}
	if err := b.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &t); err != nil {
		return nil, err
	}
	var s struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": t.TargetID, "flatten": true}, &s); err != nil {
		return nil, err
	}
	p := &Page{b: b, targetID: t.TargetID, session: s.SessionID}
	if err := p.call(ctx, "Page.enable", nil, nil); err != nil {
		return nil, err
	}
	if err := p.call(ctx, "Runtime.enable", nil, nil); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *Page) call(ctx context.Context, method string, params, out any) error {
	return p.b.call(ctx, p.session, method, params, out)
}

// Navigate loads url in the tab. It returns once the browser has started
// loading it; use WaitFor to wait for what the page should show.
func (p *Page) Navigate(ctx context.Context, url string) error {
	var r struct {
		ErrorText string `json:"errorText"`
	}
	if err := p.call(ctx, "Page.navigate", map[string]any{"url": url}, &r); err != nil {
		return err
	}
	if r.ErrorText != "" {
		return fmt.Errorf("navigate to %s: %s", url, r.ErrorText)
	}
	return nil
}

// Eval evaluates a JavaScript expression in the page (awaiting it if it is
// a promise) and decodes its JSON value into out (if not nil). A thrown
// exception is returned as an error.
func (p *Page) Eval(ctx context.Context, expr string, out any) error {
	var r struct {
		Result struct {
			Type  string          `json:"type"`
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception *struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := p.call(ctx, "Runtime.evaluate", map[string]any{
		"expression": expr, "returnByValue": true, "awaitPromise": true,
	}, &r); err != nil {
		return err
	}
	if e := r.ExceptionDetails; e != nil {
		msg := e.Text
		if e.Exception != nil && e.Exception.Description != "" {
			msg = e.Exception.Description
		}
		return fmt.Errorf("evaluate %q: %s", expr, msg)
	}
	if out != nil && len(r.Result.Value) > 0 {
		if err := json.Unmarshal(r.Result.Value, out); err != nil {
			return fmt.Errorf("evaluate %q: decode %s: %w", expr, r.Result.Type, err)
		}
	}
	return nil
}

// Text returns the rendered text of the page (document.body.innerText).
func (p *Page) Text(ctx context.Context) (string, error) {
	var s string
	err := p.Eval(ctx, `document.body ? document.body.innerText : ""`, &s)
	return s, err
}

// Link is one anchor of a page: its resolved address and its text.
type Link struct {
	Href string `json:"href"`
	Text string `json:"text"`
}

// Links returns every anchor of the page with its absolute href and its
// rendered text, whitespace trimmed.
func (p *Page) Links(ctx context.Context) ([]Link, error) {
	var ls []Link
	err := p.Eval(ctx, `Array.from(document.querySelectorAll("a[href]"), a => ({href: a.href, text: a.innerText.trim()}))`, &ls)
	return ls, err
}

// WaitFor polls check every 250 ms until it returns true. Errors are
// retried as well, since a page still loading fails evaluations. When ctx
// ends first it returns an error naming what was awaited, with the last
// error check returned.
func (p *Page) WaitFor(ctx context.Context, what string, check func(ctx context.Context) (bool, error)) error {
	var last error
	for {
		ok, err := check(ctx)
		if ok && err == nil {
			return nil
		}
		if err != nil {
			last = err
		}
		select {
		case <-ctx.Done():
			if last != nil {
				return fmt.Errorf("waiting for %s: %w (last error: %v)", what, ctx.Err(), last)
			}
			return fmt.Errorf("waiting for %s: %w", what, ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// Screenshot saves a PNG of the whole page (up to 8,000 CSS pixels tall)
// to path.
func (p *Page) Screenshot(ctx context.Context, path string) error {
	var m struct {
		CSSContentSize struct {
			Width, Height float64
		} `json:"cssContentSize"`
	}
	if err := p.call(ctx, "Page.getLayoutMetrics", nil, &m); err != nil {
		return err
	}
	h := min(max(int(m.CSSContentSize.Height+0.5), p.b.height), 8000)
	if err := p.call(ctx, "Emulation.setDeviceMetricsOverride", map[string]any{
		"width": p.b.width, "height": h, "deviceScaleFactor": 1, "mobile": false,
	}, nil); err != nil {
		return err
	}
	defer func() { _ = p.call(ctx, "Emulation.clearDeviceMetricsOverride", nil, nil) }()
	var shot struct {
		Data string `json:"data"`
	}
	if err := p.call(ctx, "Page.captureScreenshot", map[string]any{"format": "png"}, &shot); err != nil {
		return err
	}
	png, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil {
		return fmt.Errorf("screenshot: decode: %w", err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		return fmt.Errorf("screenshot: %w", err)
	}
	return nil
}

// ScreenshotView saves a PNG of what the viewport shows (the browser's
// width and height, e.g. 1280x900) to path: small enough to commit.
func (p *Page) ScreenshotView(ctx context.Context, path string) error {
	var shot struct {
		Data string `json:"data"`
	}
	if err := p.call(ctx, "Page.captureScreenshot", map[string]any{"format": "png"}, &shot); err != nil {
		return err
	}
	png, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil {
		return fmt.Errorf("screenshot: decode: %w", err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		return fmt.Errorf("screenshot: %w", err)
	}
	return nil
}

// Close closes the tab.
func (p *Page) Close(ctx context.Context) error {
	return p.b.call(ctx, "", "Target.closeTarget", map[string]any{"targetId": p.targetID}, nil)
}
