package blocks

import (
	"net/url"
	"strings"
)

// LinkAllowed reports whether u may be sent to Notion as a link (a
// rich-text text.link.url): an absolute http or https URL with a host, of
// at most MaxURLLen UTF-16 units. Notion refuses the whole request when
// one link has another scheme (onenote:, file:, ms-word:, teams:, zotero:
// were seen), answering 400 validation_error "Invalid URL for link."
// (shared/reference/notion-reality.md fact 1, [N1] [N2]); mailto: and
// tel: are not established either way, so they are refused too.
//
// It is the one place that decides: the converter keeps other links as
// text with their target shown, the writer does the same for any block
// that reaches it, and RichText.MarshalJSON never writes a link it
// refuses.
func LinkAllowed(u string) bool {
	return IsWebURL(u) && UTF16Len(u) <= MaxURLLen
}

// IsWebURL reports whether u is an absolute http or https URL with a
// host, whatever its length.
func IsWebURL(u string) bool {
	if u != strings.TrimSpace(u) {
		return false
	}
	p, err := url.Parse(u)
	return err == nil && (p.Scheme == "http" || p.Scheme == "https") && p.Host != ""
}

// LinkScheme is the scheme of u, lower-cased ("" when u has none).
func LinkScheme(u string) string {
	p, err := url.Parse(strings.TrimSpace(u))
	if err != nil {
		scheme, _, ok := strings.Cut(u, ":")
		if !ok {
			return ""
		}
		return strings.ToLower(scheme)
	}
	return p.Scheme
}
