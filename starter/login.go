package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/notebridge/notebridge/auth"
)

const loginDescription = `Signs a user in to Microsoft with the device-code flow: it prints a web address and a code,
waits while the person opens the address in any browser, enters the code and approves, then
stores the tokens encrypted (AES-256-GCM) in the token directory, one file per user, mode 0600
in a 0700 directory. The worker reads that store, refreshing the tokens as they expire, so give
it the same -token-dir and key (-token-key-file or NOTEBRIDGE_TOKEN_KEY). The app registration
must allow public client flows. Against the Graph emulator, set -authority to its root URL.`

// loginJSON is what login --json prints.
type loginJSON struct {
	User           string `json:"user"`
	TokenDir       string `json:"tokenDir"`
	KeyFile        string `json:"keyFile"`
	CreatedKeyFile bool   `json:"createdKeyFile"`
}

func newLoginCmd(c *cli, name, summary string) *cobra.Command {
	var o loginOptions
	defDir, _ := auth.DefaultDir()
	defKey, _ := auth.DefaultKeyFile()
	cmd := c.newCommand(name, "--user U [flags]", summary, loginDescription, func() string {
		return "None: signing in talks to Microsoft, not to Temporal, and tokens never enter Temporal.\n" +
			"Workflows carry only the user ID; the worker reads the token store."
	}, func(ctx context.Context, _ *cobra.Command) error {
		return c.login(ctx, o)
	})
	flags := cmd.Flags()
	flags.StringVar(&o.user, "user", "", "the user ID to store the sign-in under, as migrations name it (letters, digits, . _ @ + -)")
	flags.StringVar(&o.appID, "app-id", c.env("NOTEBRIDGE_APP_ID", ""), "the app registration's application (client) ID (env NOTEBRIDGE_APP_ID)")
	flags.StringVar(&o.tenant, "tenant", c.env("NOTEBRIDGE_TENANT", auth.TenantCommon), "tenant: common, organizations, consumers, a tenant ID or domain (env NOTEBRIDGE_TENANT)")
	flags.StringVar(&o.authority, "authority", c.env("NOTEBRIDGE_AUTHORITY", auth.DefaultAuthority), "identity platform base URL; the Graph emulator's root URL to sign in there (env NOTEBRIDGE_AUTHORITY)")
	flags.StringVar(&o.dir, "token-dir", c.env("NOTEBRIDGE_TOKEN_DIR", defDir), "token store directory (env NOTEBRIDGE_TOKEN_DIR)")
	flags.StringVar(&o.keyFile, "token-key-file", c.env("NOTEBRIDGE_TOKEN_KEY_FILE", defKey), "file holding the token store's key, mode 0600; "+auth.EnvTokenKey+" overrides it (env NOTEBRIDGE_TOKEN_KEY_FILE)")
	flags.BoolVar(&o.createKey, "create-key", false, "create the key file if it does not exist (the first sign-in on a host)")
	flags.StringVar(&o.scope, "scope", auth.ScopeNotesRead, "delegated scope: Notes.Read (your notebooks) or Notes.Read.All (notebooks shared in your organisation)")
	flags.DurationVar(&o.poll, "poll-interval", 0, "poll the identity platform this often instead of as it asks (for the emulator; whole seconds)")
	return cmd
}

// loginOptions are login's flags.
type loginOptions struct {
	user, appID, tenant, authority, dir, keyFile, scope string
	createKey                                           bool
	poll                                                time.Duration
}

// login signs the user in and stores the tokens.
func (c *cli) login(ctx context.Context, o loginOptions) error {
	user, appID, tenant, authority, dir, keyFile, scope := o.user, o.appID, o.tenant, o.authority, o.dir, o.keyFile, o.scope
	createKey, poll := o.createKey, o.poll
	if user == "" {
		return usagef("--user is required")
	}
	if err := auth.ValidateUser(user); err != nil {
		return usagef("--user: %v", err)
	}
	if appID == "" {
		return usagef("--app-id (or NOTEBRIDGE_APP_ID) is required: the application (client) ID of the app registration")
	}
	if scope != auth.ScopeNotesRead && scope != auth.ScopeNotesReadAll {
		return usagef("--scope %q: use %s or %s", scope, auth.ScopeNotesRead, auth.ScopeNotesReadAll)
	}
	if dir == "" {
		return usagef("--token-dir is required: the user configuration directory is unknown")
	}
	_, statErr := os.Stat(keyFile)
	key, err := c.loadKey(user, keyFile, createKey)
	if err != nil {
		return err
	}
	created := keyFile != "" && errors.Is(statErr, fs.ErrNotExist)
	// The device code is for the person: with --json it goes to stderr.
	talk := c.stdout
	if c.json {
		talk = c.stderr
	}
	store, err := auth.Open(auth.Config{Dir: dir, Key: key, PollInterval: poll,
		Microsoft: auth.Microsoft{ClientID: appID, Tenant: tenant, Authority: authority, Scopes: []string{scope}}})
	if err != nil {
		return err
	}
	err = store.Login(ctx, user, func(dc auth.DeviceCode) {
		fmt.Fprintln(talk, dc.Message)
		fmt.Fprintf(talk, "Waiting for %s to sign in (the code expires at %s)...\n", user, dc.ExpiresAt.Local().Format(time.TimeOnly))
	})
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(c.stderr, "Sign-in cancelled; nothing was stored.")
			return errInterrupted
		}
		return err
	}
	if c.json {
		return c.printJSON(loginJSON{User: user, TokenDir: dir, KeyFile: keyFile, CreatedKeyFile: created})
	}
	fmt.Fprintf(c.stdout, "Signed in %s: the tokens are stored encrypted in %s.\n"+
		"The worker needs the same store: -token-dir %s and -token-key-file %s (or %s).\n",
		user, dir, shellQuote(dir), shellQuote(keyFile), auth.EnvTokenKey)
	return nil
}

// loadKey loads the token key, creating the key file first when asked to
// and it does not exist.
func (c *cli) loadKey(user, keyFile string, create bool) (auth.Key, error) {
	key, err := auth.LoadKey(c.getenv, keyFile)
	if err == nil || !errors.Is(err, auth.ErrNoKey) {
		return key, err
	}
	if !create || keyFile == "" {
		return auth.Key{}, fmt.Errorf("%w\nTo create a key file, run \"starter login --user %s --create-key\" (it writes %s, mode 0600)",
			err, user, keyFile)
	}
	if _, statErr := os.Stat(keyFile); !errors.Is(statErr, fs.ErrNotExist) {
		return auth.Key{}, err
	}
	if err := auth.GenerateKeyFile(keyFile); err != nil {
		return auth.Key{}, err
	}
	out := c.stdout
	if c.json {
		out = c.stderr
	}
	fmt.Fprintf(out, "Created the token key file %s (mode 0600). Keep it safe and give the worker the same file.\n", keyFile)
	return auth.LoadKey(c.getenv, keyFile)
}
