package auth

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// Environment variables that supply the Notion integration token.
const (
	EnvNotionToken     = "NOTION_TOKEN"
	EnvNotionTokenFile = "NOTION_TOKEN_FILE"
)

// NotionToken returns the Notion integration token from NOTION_TOKEN or
// from the file NOTION_TOKEN_FILE names (read with getenv, normally
// os.Getenv). The file must not be accessible to others (mode 0640 or
// stricter, so a group-owned secret mount works). Setting both is an
// error, and so is setting neither (ErrNoNotionToken). Surrounding white
// space is trimmed. No error ever contains the token.
func NotionToken(getenv func(string) string) (Secret, error) {
	env, file := getenv(EnvNotionToken), getenv(EnvNotionTokenFile)
	switch {
	case env != "" && file != "":
		return "", fmt.Errorf("auth: both %s and %s are set: set only one", EnvNotionToken, EnvNotionTokenFile)
	case env != "":
		tok := strings.TrimSpace(env)
		if tok == "" {
			return "", fmt.Errorf("auth: %s is blank: %w", EnvNotionToken, ErrNoNotionToken)
		}
		return Secret(tok), nil
	case file != "":
		b, err := readProtectedFile(file, othersOnly, "600")
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("auth: %s names %s, which does not exist: %w", EnvNotionTokenFile, file, ErrNoNotionToken)
		}
		if err != nil {
			return "", fmt.Errorf("auth: %s: %w", EnvNotionTokenFile, err)
		}
		tok := strings.TrimSpace(string(b))
		clear(b)
		if tok == "" {
			return "", fmt.Errorf("auth: %s %s is empty: %w", EnvNotionTokenFile, file, ErrNoNotionToken)
		}
		return Secret(tok), nil
	default:
		return "", fmt.Errorf("auth: set %s to the Notion integration token, or %s to a file holding it: %w",
			EnvNotionToken, EnvNotionTokenFile, ErrNoNotionToken)
	}
}
