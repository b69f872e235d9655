package notion

import (
	"context"
	"slices"
)

// The Notion-Version values the emulator speaks, each with its documented
// shapes (see the README's "Versions" table).
const (
	// Version20220628 is the version of jomei/notionapi and
	// @notionhq/client 4.x: a database is its one table.
	Version20220628 = "2022-06-28"
	// Version20250903 splits a database into a container holding data
	// sources (@notionhq/client 5.x's default).
	Version20250903 = "2025-09-03"
	// Version20260311 renames archived to in_trash and replaces append's
	// after with position.
	Version20260311 = "2026-03-11"
)

// Versions are the Notion-Version values the emulator accepts, oldest
// first.
var Versions = []string{Version20220628, Version20250903, Version20260311}

type versionKey struct{}

// withVersion records the request's Notion-Version in ctx.
func withVersion(ctx context.Context, v string) context.Context {
	return context.WithValue(ctx, versionKey{}, v)
}

// versionOf is the request's Notion-Version (the oldest if none was
// recorded, as for the emulator's own endpoints).
func versionOf(ctx context.Context) string {
	if v, ok := ctx.Value(versionKey{}).(string); ok {
		return v
	}
	return Version20220628
}

// checkVersion validates a Notion-Version header value.
func checkVersion(v string) *apiError {
	if v == "" {
		return errMissingVersion
	}
	if !slices.Contains(Versions, v) {
		return newError(400, codeValidation,
			"Notion-Version header failed validation: the emulator speaks `2022-06-28`, `2025-09-03` and `2026-03-11`, instead was `%s`.", v)
	}
	return nil
}

// dataSources says whether version v speaks data sources (2025-09-03 on).
func dataSources(v string) bool { return v != Version20220628 }

// inTrashOnly says whether version v knows only in_trash, not archived
// (2026-03-11 on); it also takes append's position instead of after.
func inTrashOnly(v string) bool { return v == Version20260311 }

// version is the Notion-Version of the request being served.
func (c *call) version() string { return versionOf(c.r.Context()) }

// refuseKeys answers 400 for the first of keys present in body, in
// Notion's "should be not present" form (notion-reality #17).
func refuseKeys(path string, body map[string]any, keys ...string) error {
	for _, k := range keys {
		if _, ok := body[k]; ok {
			return bodyError(path+"."+k, "should be not present, instead was `%s`", brief(body[k]))
		}
	}
	return nil
}

// speaks is the Notion-Version responses are shaped for: the request's
// inside a locked handler, else the oldest (the emulator's own pages).
func (s *Server) speaks() string {
	if s.ver == "" {
		return Version20220628
	}
	return s.ver
}

// trashFlags are the archived/in_trash fields of a response: 2026-03-11
// answers in_trash only.
func (s *Server) trashFlags(out map[string]any, trashed bool) map[string]any {
	out["in_trash"] = trashed
	if !inTrashOnly(s.speaks()) {
		out["archived"] = trashed
	}
	return out
}

// pagesOrTables is the "type" of a query or search list: pages and
// databases on 2022-06-28, pages and data sources later (SDK types [N4]).
func (s *Server) pagesOrTables() string {
	if dataSources(s.speaks()) {
		return "page_or_data_source"
	}
	return "page_or_database"
}
