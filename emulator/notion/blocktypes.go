package notion

// childRule says which children a block type may hold.
type childRule int

const (
	noChildren childRule = iota
	anyChildren
	// toggleableChildren: headings hold children only with is_toggleable.
	toggleableChildren
	tableRowChildren
	columnChildren
)

// creatableTypes are the block types a request may create, with their
// child rule (reference §1.3 and §5).
var creatableTypes = map[string]childRule{
	"paragraph":          anyChildren,
	"heading_1":          toggleableChildren,
	"heading_2":          toggleableChildren,
	"heading_3":          toggleableChildren,
	"heading_4":          toggleableChildren,
	"bulleted_list_item": anyChildren,
	"numbered_list_item": anyChildren,
	"to_do":              anyChildren,
	"toggle":             anyChildren,
	"quote":              anyChildren,
	"callout":            anyChildren,
	"code":               noChildren,
	"equation":           noChildren,
	"divider":            noChildren,
	"breadcrumb":         noChildren,
	"table_of_contents":  noChildren,
	"table":              tableRowChildren,
	"table_row":          noChildren,
	"column_list":        columnChildren,
	"column":             anyChildren,
	"image":              noChildren,
	"video":              noChildren,
	"audio":              noChildren,
	"file":               noChildren,
	"pdf":                noChildren,
	"embed":              noChildren,
	"bookmark":           noChildren,
	"link_to_page":       noChildren,
}

// readOnlyTypes exist in responses but cannot be created through the
// block endpoints (or are not emulated).
var readOnlyTypes = map[string]bool{
	"child_page": true, "child_database": true, "synced_block": true, "template": true,
	"link_preview": true, "unsupported": true, "transcription": true, "meeting_notes": true, "tab": true,
}

var textTypes = map[string]bool{
	"paragraph": true, "heading_1": true, "heading_2": true, "heading_3": true, "heading_4": true,
	"bulleted_list_item": true, "numbered_list_item": true, "to_do": true, "toggle": true,
	"quote": true, "callout": true, "code": true,
}

var mediaTypes = map[string]bool{"image": true, "video": true, "audio": true, "file": true, "pdf": true}

func isHeading(t string) bool {
	return t == "heading_1" || t == "heading_2" || t == "heading_3" || t == "heading_4"
}

// codeLanguages are the values Notion accepts for code.language.
var codeLanguages = setOf(
	"abap", "abc", "agda", "arduino", "ascii art", "assembly", "bash", "basic", "bnf", "c", "c#",
	"c++", "clojure", "coffeescript", "coq", "css", "dart", "dhall", "diff", "docker", "ebnf",
	"elixir", "elm", "erlang", "f#", "flow", "fortran", "gherkin", "glsl", "go", "graphql",
	"groovy", "haskell", "hcl", "html", "idris", "java", "javascript", "json", "julia",
	"kotlin", "latex", "less", "lisp", "livescript", "llvm ir", "lua", "makefile", "markdown",
	"markup", "matlab", "mathematica", "mermaid", "nix", "notion formula", "objective-c",
	"ocaml", "pascal", "perl", "php", "plain text", "powershell", "prolog", "protobuf",
	"purescript", "python", "r", "racket", "reason", "ruby", "rust", "sass", "scala", "scheme",
	"scss", "shell", "smalltalk", "solidity", "sql", "swift", "toml", "typescript", "vb.net",
	"verilog", "vhdl", "visual basic", "webassembly", "xml", "yaml", "java/c/c++/c#",
)

func setOf(items ...string) map[string]bool {
	m := make(map[string]bool, len(items))
	for _, it := range items {
		m[it] = true
	}
	return m
}
