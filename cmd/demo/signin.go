package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/notebridge/notebridge/auth"
)

// demoApp is the app (client) ID the demo uses with the emulators.
const demoApp = "demo"

// signInConfig is where the worker finds the user's Microsoft sign-in.
type signInConfig struct {
	appID, tenant, authority string
	tokenDir, keyFile        string
}

// signIn returns the sign-in configuration: the token store in the work
// directory, on the Graph emulator's identity endpoints; or, with -real,
// the operator's own store and app registration.
func (d *demo) signIn() signInConfig {
	if d.opts.real {
		e := d.opts.realEnv
		return signInConfig{appID: e.AppID, tenant: e.Tenant, authority: e.Authority, tokenDir: e.TokenDir, keyFile: e.KeyFile}
	}
	return signInConfig{appID: demoApp, tenant: auth.TenantCommon, authority: d.graphURL,
		tokenDir: filepath.Join(d.opts.dir, "tokens"), keyFile: filepath.Join(d.opts.dir, "token.key")}
}

// loginArgs are the arguments of `starter login` for the configuration.
func (s signInConfig) loginArgs(user string) []string {
	return []string{"login", "-user", user, "-app-id", s.appID, "-tenant", s.tenant, "-authority", s.authority,
		"-token-dir", s.tokenDir, "-token-key-file", s.keyFile}
}

// login signs the demo's user in through the real path: `starter login`,
// the device-code flow, and the encrypted token store the worker reads.
func (d *demo) login(ctx context.Context) error {
	if d.opts.real {
		return d.loginReal(ctx)
	}
	return d.loginEmulator(ctx)
}

// codeLine is how the device-code prompt names the page and the code.
var codeLine = regexp.MustCompile(`open the page (\S+) and enter the code (\S+) `)

// loginEmulator makes a fresh key file, runs `starter login` against the
// Graph emulator and approves the code on the emulator's sign-in page, as
// a person would in a browser.
func (d *demo) loginEmulator(ctx context.Context) error {
	s := d.signIn()
	if err := auth.GenerateKeyFile(s.keyFile); err != nil {
		return err
	}
	// The emulator asks clients to poll every 5 s; one second keeps the
	// demo short.
	args := append(s.loginArgs(d.opts.user), "-poll-interval", "1s")
	d.say("signing %s in with the device-code flow on the Graph emulator (token key %s):\n    %s %s",
		d.opts.user, s.keyFile, d.relBin("starter"), strings.Join(quoteAll(args), " "))
	lctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(lctx, filepath.Join(d.opts.bin, "starter"), args...)
	cmd.Env = append(os.Environ(), auth.EnvTokenKey+"=") // the key file, not the operator's key
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("starter login: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starter login: %w", err)
	}
	approved := false
	var approveErr error
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		fmt.Fprintf(d.out, "    | %s\n", sc.Text())
		if m := codeLine.FindStringSubmatch(sc.Text()); m != nil && !approved {
			approved = true
			d.say("approving code %s on the emulator's sign-in page %s, as %s would in a browser", m[2], m[1], d.opts.user)
			if approveErr = approve(lctx, m[1], m[2], d.opts.user); approveErr != nil {
				cancel()
			}
		}
	}
	_, _ = io.Copy(io.Discard, out)
	err = cmd.Wait()
	switch {
	case approveErr != nil:
		return fmt.Errorf("approve the sign-in code: %w", approveErr)
	case err != nil:
		return fmt.Errorf("starter login: %w\n%s", err, stderr.String())
	case !approved:
		return errors.New("starter login never showed a code")
	}
	return nil
}

// approve posts the emulator's /devicelogin form.
func approve(ctx context.Context, page, code, user string) error {
	form := url.Values{"user_code": {code}, "user": {user}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, page, strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte("Signed in as")) {
		return fmt.Errorf("%s answered %s", page, resp.Status)
	}
	return nil
}

// loginReal signs the user in with Microsoft unless the token store
// already holds a sign-in: `starter login` shows the address and the code,
// and a person approves in a browser.
func (d *demo) loginReal(ctx context.Context) error {
	s := d.signIn()
	key, err := auth.LoadKey(os.Getenv, s.keyFile)
	switch {
	case err == nil:
		store, err := auth.Open(auth.Config{Dir: s.tokenDir, Key: key,
			Microsoft: auth.Microsoft{ClientID: s.appID, Tenant: s.tenant, Authority: s.authority}})
		if err != nil {
			return err
		}
		ok, err := store.SignedIn(d.opts.user)
		if err != nil {
			return err
		}
		if ok {
			d.say("%s is signed in (token store %s)", d.opts.user, s.tokenDir)
			return nil
		}
	case !errors.Is(err, auth.ErrNoKey):
		return err
	}
	args := append(s.loginArgs(d.opts.user), "-create-key")
	d.say("signing %s in to Microsoft:\n    %s %s", d.opts.user, d.relBin("starter"), strings.Join(quoteAll(args), " "))
	cmd := exec.CommandContext(ctx, filepath.Join(d.opts.bin, "starter"), args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, d.out, d.out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("starter login: %w", err)
	}
	return nil
}

func quoteAll(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = shellQuote(a)
	}
	return out
}
