package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/notebridge/notebridge/auth"
)

const loginDescription = `Signs a user in to Microsoft with the device-code flow: it prints a web address and a code,
waits while the person opens the address in any browser, enters the code and approves, then
stores the tokens encrypted (AES-256-GCM) in the token directory, one file per user, mode 0600
in a 0700 directory. The worker reads that store, refreshing the tokens as they expire, so give
it the same -token-dir and key (-token-key-file or NOTEBRIDGE_TOKEN_KEY). The app registration
must allow public client flows. Against the Graph emulator, set -authority to its root URL.`

func runLogin(ctx context.Context, c *cli, args []string) error {
	var user, appID, tenant, authority, dir, keyFile, scope string
	var createKey bool
	var poll time.Duration
	defDir, _ := auth.DefaultDir()
	defKey, _ := auth.DefaultKeyFile()
	flags := c.newFlagSet("login", "--user U [flags]", loginDescription, func() string {
		return "None: signing in talks to Microsoft, not to Temporal, and tokens never enter Temporal.\n" +
			"Workflows carry only the user ID; the worker reads the token store."
	})
	flags.StringVar(&user, "user", "", "the user ID to store the sign-in under, as migrations name it (letters, digits, . _ @ + -)")
	flags.StringVar(&appID, "app-id", c.env("NOTEBRIDGE_APP_ID", ""), "the app registration's application (client) ID (env NOTEBRIDGE_APP_ID)")
	flags.StringVar(&tenant, "tenant", c.env("NOTEBRIDGE_TENANT", auth.TenantCommon), "tenant: common, organizations, consumers, a tenant ID or domain (env NOTEBRIDGE_TENANT)")
	flags.StringVar(&authority, "authority", c.env("NOTEBRIDGE_AUTHORITY", auth.DefaultAuthority), "identity platform base URL; the Graph emulator's root URL to sign in there (env NOTEBRIDGE_AUTHORITY)")
	flags.StringVar(&dir, "token-dir", c.env("NOTEBRIDGE_TOKEN_DIR", defDir), "token store directory (env NOTEBRIDGE_TOKEN_DIR)")
	flags.StringVar(&keyFile, "token-key-file", c.env("NOTEBRIDGE_TOKEN_KEY_FILE", defKey), "file holding the token store's key, mode 0600; "+auth.EnvTokenKey+" overrides it (env NOTEBRIDGE_TOKEN_KEY_FILE)")
	flags.BoolVar(&createKey, "create-key", false, "create the key file if it does not exist (the first sign-in on a host)")
	flags.StringVar(&scope, "scope", auth.ScopeNotesRead, "delegated scope: Notes.Read (your notebooks) or Notes.Read.All (notebooks shared in your organisation)")
	flags.DurationVar(&poll, "poll-interval", 0, "poll the identity platform this often instead of as it asks (for the emulator; whole seconds)")
	if err := c.parse(flags, args); err != nil {
		return err
	}
	if user == "" {
		return usagef("-user is required")
	}
	if err := auth.ValidateUser(user); err != nil {
		return usagef("-user: %v", err)
	}
	if appID == "" {
		return usagef("-app-id (or NOTEBRIDGE_APP_ID) is required: the application (client) ID of the app registration")
	}
	if scope != auth.ScopeNotesRead && scope != auth.ScopeNotesReadAll {
		return usagef("-scope %q: use %s or %s", scope, auth.ScopeNotesRead, auth.ScopeNotesReadAll)
	}
	if dir == "" {
		return usagef("-token-dir is required: the user configuration directory is unknown")
	}
	key, err := c.loadKey(user, keyFile, createKey)
	if err != nil {
		return err
	}
	store, err := auth.Open(auth.Config{Dir: dir, Key: key, PollInterval: poll,
		Microsoft: auth.Microsoft{ClientID: appID, Tenant: tenant, Authority: authority, Scopes: []string{scope}}})
	if err != nil {
		return err
	}
	err = store.Login(ctx, user, func(dc auth.DeviceCode) {
		fmt.Fprintln(c.stdout, dc.Message)
		fmt.Fprintf(c.stdout, "Waiting for %s to sign in (the code expires at %s)...\n", user, dc.ExpiresAt.Local().Format(time.TimeOnly))
	})
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(c.stderr, "Sign-in cancelled; nothing was stored.")
			return errInterrupted
		}
		return err
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
	fmt.Fprintf(c.stdout, "Created the token key file %s (mode 0600). Keep it safe and give the worker the same file.\n", keyFile)
	return auth.LoadKey(c.getenv, keyFile)
}
