package convert

import (
	"html"
	"strings"
	"testing"

	"github.com/notebridge/notebridge/notion/blocks"
)

func TestInlineMapping(t *testing.T) {
	tests := []struct {
		name string
		html string
		want []blocks.Block
	}{
		{"whitespace collapses and trims",
			"<p>  a \n\t b&nbsp;&nbsp;c  </p>",
			[]blocks.Block{para(plain("a b c"))}},
		{"br inside a paragraph drops the spaces around it",
			"<p>one <br /> two</p>",
			[]blocks.Block{para(plain("one\ntwo"))}},
		{"leading and trailing br are trimmed",
			"<p><br />one<br /></p>",
			[]blocks.Block{para(plain("one"))}},
		{"object replacement character between words is a word break, ZWJ kept",
			"<p>a\uFFFCb 👩\u200d💻</p>",
			[]blocks.Block{para(plain("a b 👩\u200d💻"))}},
		{"object replacement character next to a space or punctuation is deleted",
			"<p>week\uFFFC op\uFFFC. \uFFFCend</p>",
			[]blocks.Block{para(plain("week op. end"))}},
		{"span styles",
			`<p><span style="font-weight:bold">b</span> <span style="font-style:italic">i</span> ` +
				`<span style="text-decoration:underline">u</span> <span style="text-decoration:line-through">s</span></p>`,
			[]blocks.Block{para(styled("b", bold), plain(" "), styled("i", italic), plain(" "),
				styled("u", blocks.Annotations{Underline: true}), plain(" "),
				styled("s", blocks.Annotations{Strikethrough: true}))}},
		{"tags and nesting combine",
			"<p><b>bold <i>both</i></b><del>x</del></p>",
			[]blocks.Block{para(styled("bold ", bold), styled("both", blocks.Annotations{Bold: true, Italic: true}),
				styled("x", blocks.Annotations{Strikethrough: true}))}},
		{"a style on the p applies to all its text; a span can undo it",
			`<p style="font-weight:bold">all <span style="font-weight:normal">not</span></p>`,
			[]blocks.Block{para(styled("all ", bold), plain("not"))}},
		{"adjacent runs with the same formatting merge",
			`<p><b>a</b><span style="font-weight:bold">b</span></p>`,
			[]blocks.Block{para(styled("ab", bold))}},
		{"link href is entity-decoded",
			`<p>see <a href="https://x.example/?a=1&amp;b=2">log</a></p>`,
			[]blocks.Block{para(plain("see "), linked("log", "https://x.example/?a=1&b=2"))}},
		{"inline Consolas is a code mark",
			`<p>run <span style="font-family:Consolas">ls -l</span> now</p>`,
			[]blocks.Block{para(plain("run "), styled("ls -l", code), plain(" now"))}},
		{"text colour maps to a named colour",
			`<p><span style="color:#c00000">red</span><span style="color:#2e75b5">blue</span><span style="color:#000000">black</span></p>`,
			[]blocks.Block{para(styled("red", blocks.Annotations{Color: "red"}),
				styled("blue", blocks.Annotations{Color: "blue"}), plain("black"))}},
		{"highlight maps to a background colour and wins over text colour",
			`<p><span style="background-color:yellow;color:#c00000">hi</span></p>`,
			[]blocks.Block{para(styled("hi", blocks.Annotations{Color: "yellow_background"}))}},
		{"sup and sub use Unicode forms when they exist",
			"<p>x<sup>2</sup> H<sub>2</sub>O 2<sup>n+1</sup></p>",
			[]blocks.Block{para(plain("x² H₂O 2ⁿ⁺¹"))}},
		{"sup and sub without Unicode forms are spelled out",
			"<p>1<sup>st</sup> x<sub>max</sub></p>",
			[]blocks.Block{para(plain("1^(st) x_(max)"))}},
		{"onenote link keeps the URL and names the page",
			`<p><a href="onenote:#P&amp;section-id={11111111-2222-3333-4444-555555555555}&amp;page-id={AbCdEf01-2222-3333-4444-555555555555}&amp;end">P</a></p>`,
			[]blocks.Block{para(blocks.RichText{Text: "P",
				Link:    "onenote:#P&section-id={11111111-2222-3333-4444-555555555555}&page-id={AbCdEf01-2222-3333-4444-555555555555}&end",
				PageRef: "AbCdEf01-2222-3333-4444-555555555555"})}},
		{"section link has no page: text with its target shown",
			`<p><a href="onenote:https://d.docs.live.net/x/Notes.one#section-id={11111111-2222-3333-4444-555555555555}&amp;end">S</a></p>`,
			[]blocks.Block{para(plain("S (onenote:https://d.docs.live.net/x/Notes.one#section-id={11111111-2222-3333-4444-555555555555}&end)"))}},
		{"file link is text with its target shown",
			`<p>see <a href="file:///C:/Users/a/plan.docx">the plan</a>.</p>`,
			[]blocks.Block{para(plain("see the plan (file:///C:/Users/a/plan.docx)."))}},
		{"teams link keeps the anchor's formatting, target after it",
			`<p><a href="msteams://teams.microsoft.com/l/chat/0/0?users=a@b.c"><b>chat</b> now</a></p>`,
			[]blocks.Block{para(styled("chat", bold), plain(" now (msteams://teams.microsoft.com/l/chat/0/0?users=a@b.c)"))}},
		{"mailto link whose text is the address is the text alone",
			`<p><a href="mailto:bob@example.com">bob@example.com</a></p>`,
			[]blocks.Block{para(plain("bob@example.com"))}},
		{"mailto link with other text shows the address",
			`<p><a href="mailto:bob@example.com">Bob</a></p>`,
			[]blocks.Block{para(plain("Bob (mailto:bob@example.com)"))}},
		{"ms-word link is text",
			`<p><a href="ms-word:ofe|u|https://x.example/a.docx">doc</a></p>`,
			[]blocks.Block{para(plain("doc (ms-word:ofe|u|https://x.example/a.docx)"))}},
		{"http link stays a link",
			`<p><a href="HTTP://x.example/a">x</a></p>`,
			[]blocks.Block{para(linked("x", "HTTP://x.example/a"))}},
		{"relative link is kept as text",
			`<p><a href="#top">up</a></p>`,
			[]blocks.Block{para(plain("up"))}},
		{"loose inline content in an outline is a paragraph",
			`text <b>bold</b>`,
			[]blocks.Block{para(plain("text "), styled("bold", bold))}},
		{"empty and whitespace-only paragraphs make no block",
			"<p></p><p> &nbsp; </p><br /><p>x</p>",
			[]blocks.Block{para(plain("x"))}},
		{"cite alone in a p is a quote",
			`<p><cite style="color:#595959">said</cite></p>`,
			[]blocks.Block{textBlock(blocks.Quote, plain("said"))}},
		{"cite inside a sentence is text",
			`<p>as <cite>X</cite> said</p>`,
			[]blocks.Block{para(plain("as X said"))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := convertBody(t, outlineDiv(tt.html), Options{})
			assertBlocks(t, res.Blocks, tt.want)
		})
	}
}

func TestInlineLosses(t *testing.T) {
	// A colour is counted once a block, however many runs it spans: two
	// red runs in one paragraph and one in the next are two.
	res := convertBody(t, outlineDiv(`<p><span style="color:#c00000">a</span> <span style="color:#c00000">b</span>x<sup>2</sup></p>`+
		`<p><span style="color:#c00000">c</span></p>`), Options{})
	var colour, script *Loss
	for i := range res.Losses {
		switch res.Losses[i].Kind {
		case LossColor:
			colour = &res.Losses[i]
		case LossScript:
			script = &res.Losses[i]
		}
	}
	if colour == nil || colour.Count != 2 || colour.Severity != Mapped || colour.Near == "" {
		t.Errorf("colour loss = %+v, want one mapped entry counted twice (two blocks) with an excerpt", colour)
	}
	if script == nil || script.Severity != Mapped {
		t.Errorf("sup loss = %+v, want a mapped entry", script)
	}
}

func TestNotionColor(t *testing.T) {
	tests := []struct {
		css        string
		background bool
		want       string
	}{
		{"#c00000", false, "red"},
		{"#FF0000", false, "red"},
		{"#70ad47", false, "green"},
		{"#2e75b5", false, "blue"},
		{"#7030a0", false, "purple"},
		{"#ffc000", false, "yellow"},
		{"#ed7d31", false, "orange"},
		{"#843c0c", false, "brown"},
		{"#e91e9c", false, "pink"},
		{"#808080", false, "gray"},
		{"#000", false, ""},
		{"black", false, ""},
		{"rgb(0, 112, 192)", false, "blue"},
		{"yellow", true, "yellow_background"},
		{"#00ff00", true, "green_background"},
		{"aqua", true, "blue_background"},
		{"#ffffff", true, ""},
		{"#d9d9d9", true, "gray_background"},
		{"not-a-colour", false, ""},
		{"transparent", true, ""},
		{"windowtext", false, ""},
	}
	for _, tt := range tests {
		if got := NotionColor(tt.css, tt.background); got != tt.want {
			t.Errorf("NotionColor(%q, %v) = %q, want %q", tt.css, tt.background, got, tt.want)
		}
	}
}

// TestLinkSchemes checks that every link Notion would refuse is reported,
// naming its scheme, and that no block keeps one as a link.
func TestLinkSchemes(t *testing.T) {
	tests := []struct {
		href, scheme string
		kept         bool
	}{
		{"https://x.example/a", "", true},
		{"http://x.example/a", "", true},
		{"onenote:#P&section-id={11111111-2222-3333-4444-555555555555}&page-id={21111111-2222-3333-4444-555555555555}&end", "", true},
		{"onenote:https://d.docs.live.net/x/Notes.one#section-id={11111111-2222-3333-4444-555555555555}&end", "onenote:", false},
		{"file:///C:/a.txt", "file:", false},
		{"ms-word:ofe|u|https://x.example/a.docx", "ms-word:", false},
		{"teams:/l/chat/0/0", "teams:", false},
		{"mailto:a@b.example", "mailto:", false},
		{"tel:+4412345", "tel:", false},
		{"zotero://select/items/1", "zotero:", false},
		{"https:no-host", "https:", false},
	}
	for _, tt := range tests {
		t.Run(tt.href, func(t *testing.T) {
			res := convertBody(t, outlineDiv(`<p><a href="`+html.EscapeString(tt.href)+`">go</a></p>`), Options{})
			rt := res.Blocks[0].RichText
			var linked bool
			for _, r := range rt {
				if r.Link != "" && !blocks.LinkAllowed(r.Link) && r.PageRef == "" {
					t.Errorf("run %q keeps link %q, which Notion refuses", r.Text, r.Link)
				}
				linked = linked || r.Link != "" || r.PageRef != ""
			}
			if linked != tt.kept {
				t.Errorf("linked = %v, want %v (%+v)", linked, tt.kept, rt)
			}
			var found bool
			for _, l := range res.Losses {
				found = found || (l.Kind == LossLink && strings.HasPrefix(l.Detail, tt.scheme+" link") && strings.Contains(l.Detail, "target shown"))
			}
			if !tt.kept && !found {
				t.Errorf("no loss names the %s link; losses: %+v", tt.scheme, res.Losses)
			}
			if !tt.kept && !strings.Contains(blocks.PlainText(rt), tt.href) {
				t.Errorf("text %q does not show the target %q", blocks.PlainText(rt), tt.href)
			}
		})
	}
}
