package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/notebridge/notebridge/auth"
	"github.com/notebridge/notebridge/internal/stack"
)

// options are the demo's flags.
type options struct {
	root       string  // the module root
	dir        string  // the work directory, made fresh each run
	bin        string  // where binaries are built and the temporal CLI is
	scale      float64 // time scale of the Graph limits
	notionRate float64 // Notion requests per second (emulator and worker)
	pages      int     // pages per section of the sample notebook
	exit       bool    // exit when the migration ended
	noBuild    bool    // use the binaries in bin as they are
	real       bool    // migrate a real notebook
	user       string  // whose notebook (the token file's name)
	realEnv    realEnv
}

// realEnv is the configuration of a real migration, from the environment.
type realEnv struct {
	GraphURL, NotionToken, NotionParent, NotionURL, AppID, Tenant, Authority, Notebook, User string
	// TokenDir and KeyFile are the encrypted token store `starter login`
	// fills (the auth package's defaults unless set); NOTEBRIDGE_TOKEN_KEY,
	// when set, is the key instead of the file.
	TokenDir, KeyFile string
}

// realVars documents the variables -real reads.
const realVars = `With -real the emulators are skipped and a real notebook is migrated; set:
  NOTEBRIDGE_APP_ID            application (client) ID of your app registration ("Allow public
                               client flows" on, delegated permission Notes.Read)
  NOTION_TOKEN                 the Notion integration token
  NOTEBRIDGE_NOTION_PARENT     ID of the Notion page shared with the integration
and optionally:
  NOTEBRIDGE_TENANT            tenant of the app registration (default common)
  NOTEBRIDGE_USER              user ID in the token store and workflow IDs (default "me")
  NOTEBRIDGE_NOTEBOOK          notebook ID or display name (default: the first one)
  NOTEBRIDGE_TOKEN_DIR         token store (default ~/.config/notebridge/tokens)
  NOTEBRIDGE_TOKEN_KEY_FILE    its key file (default ~/.config/notebridge/token.key, created on
                               first sign-in), or NOTEBRIDGE_TOKEN_KEY (base64 of 32 bytes)
  NOTEBRIDGE_AUTHORITY         identity platform (default https://login.microsoftonline.com)
  NOTEBRIDGE_GRAPH_URL         Graph base URL (default https://graph.microsoft.com/v1.0)
  NOTEBRIDGE_NOTION_URL        Notion API base URL (default https://api.notion.com)
A user who is not signed in yet is signed in first (bin/starter login: open the address it
prints and enter the code); the sign-in is kept, encrypted, for later runs.`

func parseOptions(args []string, stderr io.Writer) (options, error) {
	var o options
	root, err := stack.ModuleRoot()
	if err != nil {
		return o, err
	}
	o.root = root
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: demo [flags]\n\nRuns a whole migration end to end on local emulators; Ctrl-C stops everything.\n\n")
		fs.PrintDefaults()
		fmt.Fprintf(stderr, "\n%s\n", realVars)
	}
	fs.StringVar(&o.dir, "dir", filepath.Join(root, ".demo"), "work directory (removed and made fresh each run)")
	fs.StringVar(&o.bin, "bin", filepath.Join(root, "bin"), "directory of the binaries (built there) and of the temporal CLI")
	fs.Float64Var(&o.scale, "scale", 60, "time scale of the Graph limits: 60 makes an hour last a minute")
	fs.Float64Var(&o.notionRate, "notion-rate", 30, "Notion requests per second (emulator limit and worker pace)")
	fs.IntVar(&o.pages, "pages", 40, "pages per section of the sample notebook (4 sections); the default needs about 1.5 hours of Graph budget")
	fs.BoolVar(&o.exit, "exit", false, "exit when the migration ended instead of running until Ctrl-C")
	fs.BoolVar(&o.noBuild, "no-build", false, "do not build the worker and emulators into -bin first")
	fs.BoolVar(&o.real, "real", false, "migrate a real notebook with real credentials (see below)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	if o.scale <= 0 || o.notionRate <= 0 || o.pages <= 0 {
		return o, errors.New("-scale, -notion-rate and -pages must be positive")
	}
	o.user = "alice"
	if o.real {
		if o.realEnv, err = readRealEnv(os.Getenv); err != nil {
			return o, err
		}
		o.user = o.realEnv.User
	}
	return o, nil
}

// readRealEnv reads the -real variables and names every missing one.
func readRealEnv(getenv func(string) string) (realEnv, error) {
	e := realEnv{
		GraphURL: getenv("NOTEBRIDGE_GRAPH_URL"), NotionToken: getenv("NOTION_TOKEN"),
		NotionParent: getenv("NOTEBRIDGE_NOTION_PARENT"), NotionURL: getenv("NOTEBRIDGE_NOTION_URL"),
		AppID: getenv("NOTEBRIDGE_APP_ID"), Tenant: getenv("NOTEBRIDGE_TENANT"), Authority: getenv("NOTEBRIDGE_AUTHORITY"),
		Notebook: getenv("NOTEBRIDGE_NOTEBOOK"), User: getenv("NOTEBRIDGE_USER"),
		TokenDir: getenv("NOTEBRIDGE_TOKEN_DIR"), KeyFile: getenv("NOTEBRIDGE_TOKEN_KEY_FILE"),
	}
	var missing []string
	for _, v := range []struct{ name, val string }{
		{"NOTEBRIDGE_APP_ID", e.AppID}, {"NOTION_TOKEN", e.NotionToken}, {"NOTEBRIDGE_NOTION_PARENT", e.NotionParent},
	} {
		if strings.TrimSpace(v.val) == "" {
			missing = append(missing, v.name)
		}
	}
	if len(missing) > 0 {
		return e, fmt.Errorf("-real: missing %s\n%s", strings.Join(missing, ", "), realVars)
	}
	if e.GraphURL == "" {
		e.GraphURL = "https://graph.microsoft.com/v1.0"
	}
	if e.NotionURL == "" {
		e.NotionURL = "https://api.notion.com"
	}
	if e.User == "" {
		e.User = "me"
	}
	if err := auth.ValidateUser(e.User); err != nil {
		return e, fmt.Errorf("-real: NOTEBRIDGE_USER: %w", err)
	}
	if e.Tenant == "" {
		e.Tenant = auth.TenantCommon
	}
	if e.Authority == "" {
		e.Authority = auth.DefaultAuthority
	}
	var err error
	if e.TokenDir == "" {
		if e.TokenDir, err = auth.DefaultDir(); err != nil {
			return e, fmt.Errorf("-real: set NOTEBRIDGE_TOKEN_DIR: %w", err)
		}
	}
	if e.KeyFile == "" {
		if e.KeyFile, err = auth.DefaultKeyFile(); err != nil {
			return e, fmt.Errorf("-real: set NOTEBRIDGE_TOKEN_KEY_FILE: %w", err)
		}
	}
	return e, nil
}
