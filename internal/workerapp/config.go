package workerapp

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/notebridge/notebridge/auth"
	"github.com/notebridge/notebridge/codec"
	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/shard"
	"github.com/notebridge/notebridge/onenote"
	"github.com/notebridge/notebridge/readiness"
)

// config is the worker's configuration, from flags with environment
// defaults. Secrets (the Notion token) come from the environment only, so
// they never show in a process listing.
type config struct {
	TemporalAddress string
	Namespace       string
	TaskQueue       string
	GraphURL        string
	NotionURL       string
	Limits          string
	AppID           string
	StagingDir      string
	// ImportDir is activities.Config.ImportDir.
	ImportDir string
	// LimitsFile names a JSON limits spec (limiter.LoadSpec) and
	// LimitsSpec is what it holds: the Graph limiter enforces it (see
	// applyLimits). Empty: the -limits profile's table.
	LimitsFile string
	LimitsSpec *limiter.Spec
	// TokenDir is the encrypted token store's directory, TokenKeyFile the
	// file holding its key (NOTEBRIDGE_TOKEN_KEY, when set, wins).
	TokenDir     string
	TokenKeyFile string
	// CodecKeyFile holds the keys that encrypt workflow payloads
	// (NOTEBRIDGE_CODEC_KEY, when set, wins); neither means payloads are
	// stored unencrypted.
	CodecKeyFile string
	// CodecEndpoint is the codec server's URL that the refusal of an
	// unencrypted payload tells people to send it through.
	CodecEndpoint string
	// CodecAllowPlaintext lets payloads that are not encrypted through
	// even with a key (for workflows started before encryption was on);
	// without it the worker refuses them (codec.ErrPlaintext).
	CodecAllowPlaintext bool
	// Tenant and Authority are where Microsoft sign-ins are refreshed:
	// the app registration's tenant and the identity platform (the Graph
	// emulator's root URL in tests and demos).
	Tenant    string
	Authority string
	// NotionRate is Notion's average requests per second per token;
	// NotionWindows, when set, replaces the windows it implies
	// ("3/1s,180/1m"). NotionPacing says who enforces them: every worker
	// together through the pace entity (pacingShared), or each process
	// alone (pacingProcess).
	NotionRate    float64
	NotionWindows string
	NotionPacing  string
	// NotionFacts are the facts of the Notion workspace the API does not
	// tell, for the readiness check before a migration's first write:
	// -notion-plan, -notion-token-type, -notion-blocks-used and
	// -notion-members (used when the connection may not list users).
	NotionFacts readiness.Facts
	// NotionSpec is the pace spec the three settings above make.
	NotionSpec   limiter.PaceSpec
	GraphTimeout time.Duration
	LogLevel     string
	// LimiterUsers is how many users the install migrates (-limiter-users);
	// LimiterShards, the number of Graph limiter shards, is chosen from it
	// (shard.Count: one per shard.UsersPerShard users, one for a small
	// install), so every shard's state stays bounded.
	LimiterUsers  int
	LimiterShards int
	// NotionToken is read from NOTION_TOKEN or the file NOTION_TOKEN_FILE
	// names.
	NotionToken string
}

func env(name, def string) string {
	if v, ok := os.LookupEnv(name); ok && v != "" {
		return v
	}
	return def
}

// envBool reads a boolean environment variable: unset, empty or not a
// boolean is false.
func envBool(name string) bool {
	v, err := strconv.ParseBool(os.Getenv(name))
	return err == nil && v
}

func envFloat(name string, def float64) float64 {
	if v, err := strconv.ParseFloat(os.Getenv(name), 64); err == nil {
		return v
	}
	return def
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

// parseConfig reads flags (args without the program name) and the
// environment.
func parseConfig(args []string) (config, error) { return parseConfigWith(args, nil) }

// parseConfigWith is parseConfig with more flags, which more defines.
func parseConfigWith(args []string, more func(*flag.FlagSet)) (config, error) {
	var c config
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	if more != nil {
		more(fs)
	}
	fs.StringVar(&c.TemporalAddress, "temporal-address", env("TEMPORAL_ADDRESS", "127.0.0.1:7233"), "Temporal frontend host:port (env TEMPORAL_ADDRESS)")
	fs.StringVar(&c.Namespace, "namespace", env("TEMPORAL_NAMESPACE", "default"), "Temporal namespace (env TEMPORAL_NAMESPACE)")
	fs.StringVar(&c.TaskQueue, "task-queue", env("NOTEBRIDGE_TASK_QUEUE", "notebridge"), "task queue (env NOTEBRIDGE_TASK_QUEUE)")
	fs.StringVar(&c.GraphURL, "graph-url", env("NOTEBRIDGE_GRAPH_URL", onenote.DefaultBaseURL), "Microsoft Graph base URL, e.g. http://127.0.0.1:8081/v1.0 for the emulator (env NOTEBRIDGE_GRAPH_URL)")
	fs.StringVar(&c.NotionURL, "notion-url", env("NOTEBRIDGE_NOTION_URL", "https://api.notion.com"), "Notion API base URL (env NOTEBRIDGE_NOTION_URL)")
	fs.StringVar(&c.Limits, "limits", env("NOTEBRIDGE_LIMITS", "onenote"), "default Graph limits profile: onenote or onenote-x<factor> (env NOTEBRIDGE_LIMITS)")
	fs.StringVar(&c.LimitsFile, "limits-file", env("NOTEBRIDGE_LIMITS_FILE", ""),
		"JSON file of Graph limits (user and app windows, concurrency, tuning; absent fields keep the OneNote table's values): the app's limiter enforces it from the worker's start, running or not (env NOTEBRIDGE_LIMITS_FILE)")
	fs.StringVar(&c.AppID, "app-id", env("NOTEBRIDGE_APP_ID", ""), "Microsoft app (client) ID; one limiter per app (env NOTEBRIDGE_APP_ID)")
	fs.StringVar(&c.ImportDir, "import-dir", env("NOTEBRIDGE_IMPORT_DIR", ""),
		"the folder whose OneNote files a file import may read (\"file\" in the input); empty: any path the worker can read (env NOTEBRIDGE_IMPORT_DIR)")
	fs.StringVar(&c.StagingDir, "staging-dir", env("NOTEBRIDGE_STAGING_DIR", filepath.Join(os.TempDir(), "notebridge-staging")), "where page content is staged (env NOTEBRIDGE_STAGING_DIR)")
	defDir, _ := auth.DefaultDir()
	defKey, _ := auth.DefaultKeyFile()
	fs.StringVar(&c.TokenDir, "token-dir", env("NOTEBRIDGE_TOKEN_DIR", defDir), "encrypted token store directory, as starter login writes it (env NOTEBRIDGE_TOKEN_DIR)")
	fs.StringVar(&c.TokenKeyFile, "token-key-file", env("NOTEBRIDGE_TOKEN_KEY_FILE", defKey),
		"file holding the token store's key, mode 0600; the environment variable "+auth.EnvTokenKey+" (base64 of 32 bytes) overrides it (env NOTEBRIDGE_TOKEN_KEY_FILE)")
	fs.StringVar(&c.CodecKeyFile, "codec-key-file", env("NOTEBRIDGE_CODEC_KEY_FILE", ""),
		"payload encryption key file, mode 0600 (env NOTEBRIDGE_CODEC_KEY_FILE; NOTEBRIDGE_CODEC_KEY wins); without either, payloads are stored unencrypted")
	fs.StringVar(&c.CodecEndpoint, "codec-endpoint", env("NOTEBRIDGE_CODEC_ENDPOINT", codec.DefaultCodecEndpoint),
		"the codec server's URL, which the refusal of an unencrypted workflow input tells people to start it through (env NOTEBRIDGE_CODEC_ENDPOINT)")
	fs.BoolVar(&c.CodecAllowPlaintext, "codec-allow-plaintext", envBool("NOTEBRIDGE_CODEC_ALLOW_PLAINTEXT"),
		"with a payload key, still accept unencrypted payloads (workflows started before encryption was on); without it they are refused (env NOTEBRIDGE_CODEC_ALLOW_PLAINTEXT)")
	fs.StringVar(&c.Tenant, "tenant", env("NOTEBRIDGE_TENANT", auth.TenantCommon), "Microsoft tenant of the app registration: common, organizations, consumers, a tenant ID or domain (env NOTEBRIDGE_TENANT)")
	fs.StringVar(&c.Authority, "authority", env("NOTEBRIDGE_AUTHORITY", auth.DefaultAuthority),
		"Microsoft identity platform base URL; the Graph emulator's root URL (e.g. http://127.0.0.1:8081) to use its sign-in (env NOTEBRIDGE_AUTHORITY)")
	fs.Float64Var(&c.NotionRate, "notion-rate", envFloat("NOTEBRIDGE_NOTION_RATE", 3),
		"Notion requests per second per integration token, over every worker (env NOTEBRIDGE_NOTION_RATE)")
	fs.StringVar(&c.NotionWindows, "notion-windows", env("NOTEBRIDGE_NOTION_WINDOWS", ""),
		"Notion rate windows per token, e.g. 3/1s,180/1m (no more than 3 in any second, 180 in any minute); replaces the windows -notion-rate implies (env NOTEBRIDGE_NOTION_WINDOWS)")
	fs.StringVar(&c.NotionPacing, "notion-pacing", env("NOTEBRIDGE_NOTION_PACING", pacingShared),
		"who holds the Notion rate: shared (every worker together, through the pace entity in Temporal) or process (each worker process alone: for a single worker or benchmarks) (env NOTEBRIDGE_NOTION_PACING)")
	fs.StringVar(&c.NotionFacts.Plan, "notion-plan", env("NOTEBRIDGE_NOTION_PLAN", ""),
		"the Notion workspace's plan: free, plus, business or enterprise (the API does not tell it; empty: unknown, the Free block limit is not checked) (env NOTEBRIDGE_NOTION_PLAN)")
	fs.StringVar(&c.NotionFacts.TokenType, "notion-token-type", env("NOTEBRIDGE_NOTION_TOKEN_TYPE", ""),
		"what NOTION_TOKEN is: internal, oauth_selected (public OAuth restricted to selected workspaces), oauth_public (installable in any workspace) or personal (a personal access token); the last two are exempt from the Free block limit (env NOTEBRIDGE_NOTION_TOKEN_TYPE)")
	fs.IntVar(&c.NotionFacts.BlocksUsed, "notion-blocks-used", envInt("NOTEBRIDGE_NOTION_BLOCKS_USED", 0),
		"blocks the Notion workspace has created in its life (Settings > Plans shows the usage; the API does not tell it) (env NOTEBRIDGE_NOTION_BLOCKS_USED)")
	fs.IntVar(&c.NotionFacts.Members, "notion-members", envInt("NOTEBRIDGE_NOTION_MEMBERS", 0),
		"the Notion workspace's members, guests excluded, if the integration may not read users (otherwise counted through the API) (env NOTEBRIDGE_NOTION_MEMBERS)")
	fs.IntVar(&c.LimiterUsers, "limiter-users", envInt("NOTEBRIDGE_LIMITER_USERS", shard.UsersPerShard),
		"users the install migrates: the Graph limiter gets one shard per "+strconv.Itoa(shard.UsersPerShard)+" users (one for a small install), and shards share the app limits through a coordinator's leases (give every worker the same number; runs already going keep the shard count they started with) (env NOTEBRIDGE_LIMITER_USERS)")
	fs.DurationVar(&c.GraphTimeout, "graph-timeout", 60*time.Second, "timeout of one Graph request")
	fs.StringVar(&c.LogLevel, "log-level", env("NOTEBRIDGE_LOG_LEVEL", "info"), "debug, info, warn or error")
	if err := fs.Parse(args); err != nil {
		if strings.Contains(err.Error(), "-skip-ink") {
			return c, fmt.Errorf("%w: skipping ink is an option of each migration now: %s", err, skipInkMoved)
		}
		return c, err
	}
	if os.Getenv("NOTEBRIDGE_SKIP_INK") != "" {
		return c, errors.New("NOTEBRIDGE_SKIP_INK is no longer read: skipping ink is an option of each migration now: " + skipInkMoved)
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments %q: every setting is a flag (see -help)", fs.Args())
	}
	tok, err := auth.NotionToken(os.Getenv)
	if err != nil && !errors.Is(err, auth.ErrNoNotionToken) {
		return c, err
	}
	c.NotionToken = tok.Reveal()
	if err := readiness.ValidPlan(c.NotionFacts.Plan); err != nil {
		return c, fmt.Errorf("-notion-plan: %w", err)
	}
	if err := readiness.ValidTokenType(c.NotionFacts.TokenType); err != nil {
		return c, fmt.Errorf("-notion-token-type: %w", err)
	}
	if c.NotionFacts.BlocksUsed < 0 || c.NotionFacts.Members < 0 {
		return c, fmt.Errorf("-notion-blocks-used %d, -notion-members %d: want counts of at least 0", c.NotionFacts.BlocksUsed, c.NotionFacts.Members)
	}
	if c.LimiterUsers < 1 {
		return c, fmt.Errorf("-limiter-users %d: want at least 1", c.LimiterUsers)
	}
	c.LimiterShards = shard.Count(c.LimiterUsers)
	if c.AppID == "" {
		return c, errors.New("-app-id (or NOTEBRIDGE_APP_ID) is required")
	}
	if c.TokenDir == "" {
		return c, errors.New("-token-dir (or NOTEBRIDGE_TOKEN_DIR) is required: no default, the user configuration directory is unknown")
	}
	if c.NotionToken == "" {
		return c, errors.New("no Notion token: set NOTION_TOKEN, or NOTION_TOKEN_FILE to a file only you can read")
	}
	if _, err := limiter.Profile(c.Limits); err != nil {
		return c, fmt.Errorf("-limits: %w", err)
	}
	if c.LimitsSpec, err = loadLimits(c.LimitsFile); err != nil {
		return c, err
	}
	if c.NotionSpec, err = notionSpec(c); err != nil {
		return c, err
	}
	return c, nil
}

// skipInkMoved says where the worker's former -skip-ink went.
const skipInkMoved = `"starter migrate --skip-ink", or "skipInk": true in the MigrateNotebook input (docs/options.md)`

// Values of -notion-pacing.
const (
	pacingShared  = "shared"
	pacingProcess = "process"
)

// notionSpec makes the Notion pace spec from -notion-rate,
// -notion-windows and -notion-pacing.
func notionSpec(c config) (limiter.PaceSpec, error) {
	if c.NotionPacing != "" && c.NotionPacing != pacingShared && c.NotionPacing != pacingProcess {
		return limiter.PaceSpec{}, fmt.Errorf("-notion-pacing %q (or NOTEBRIDGE_NOTION_PACING): use %q (every worker together) or %q (each process alone)",
			c.NotionPacing, pacingShared, pacingProcess)
	}
	spec, err := limiter.NotionAt(c.NotionRate)
	if err != nil {
		return spec, fmt.Errorf("-notion-rate: %w", err)
	}
	if c.NotionWindows != "" {
		if spec.Windows, err = limiter.ParsePaceWindows(c.NotionWindows); err != nil {
			return spec, fmt.Errorf("-notion-windows: %w", err)
		}
		spec.Name = "notion-custom"
		if err := spec.Validate(); err != nil {
			return spec, fmt.Errorf("-notion-windows: %w", err)
		}
	}
	return spec, nil
}

// openStore opens the encrypted token store the configuration names. A
// missing key gets an error that says how to make one.
func openStore(c config, log *slog.Logger) (*auth.Store, error) {
	key, err := auth.LoadKey(os.Getenv, c.TokenKeyFile)
	if errors.Is(err, auth.ErrNoKey) {
		return nil, fmt.Errorf("token store key: %w (\"starter login --user <user> --create-key\" creates the key file while it signs a user in; "+
			"give the worker the same -token-key-file, or set %s)", err, auth.EnvTokenKey)
	}
	if err != nil {
		return nil, fmt.Errorf("token store key: %w", err)
	}
	store, err := auth.Open(auth.Config{Dir: c.TokenDir, Key: key, Logger: log,
		Microsoft: auth.Microsoft{ClientID: c.AppID, Tenant: c.Tenant, Authority: c.Authority}})
	if err != nil {
		return nil, fmt.Errorf("token store: %w", err)
	}
	return store, nil
}
