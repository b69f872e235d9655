// Package convert turns a OneNote page, as Microsoft Graph returns it
// (GET /me/onenote/pages/{id}/content, "output HTML"), into Notion blocks
// (package notion/blocks), and says what could not be carried over.
//
// Page is the entry point. It is a pure function: no I/O, no clock, no
// global state. It accepts any input and never panics: markup it cannot
// read is reported in the page's losses, never a reason to fail. The
// result is the page's title and creation time, its top-level blocks in
// reading order with children nested at any depth (splitting them into
// Notion requests is the writer's job), the OneNote resources the blocks
// refer to (what the pipeline must fetch, one Graph request each), the
// page's internal onenote: links, and the loss report.
//
// # Reading the page
//
// Graph returns self-closing <object …/> and <iframe …/>, which an HTML5
// parser would read as start tags (nesting the rest of the page inside
// them); they are rewritten to explicit pairs before parsing. Invalid UTF-8
// becomes U+FFFD. A page nested deeper than the parser accepts is
// flattened and parsed again. Content an unclosed iframe swallowed as raw
// text is parsed again and converted after it.
//
// The outlines are the element children of body (absolutely positioned
// divs, imgs and objects). They are read by top, then left, compared as
// numbers, a missing top counting as 120 and a missing left as 48 (Graph's
// defaults); within an outline, document order.
//
// # Mapping
//
//   - Text: entities decoded, whitespace (including NBSP) collapsed and
//     trimmed; <br /> inside a block is "\n", between blocks nothing.
//     Every U+FFFC in text, code or the title stands for an object Graph
//     did not export and is reported: between two letters or digits in
//     text it is a word break (a space); elsewhere (beside a space or
//     punctuation, at either end, in code, in the title) it is deleted
//     and reported as left out; a block whose text is only U+FFFC is
//     reported once. (Inside an equation it is deleted without a report.)
//     Empty paragraphs make no block.
//   - Standing alone: an equation or a citation stands alone in its
//     paragraph when everything else there is blank: whitespace, U+FFFC,
//     <br /> and plain spans holding only those (onlyElement, the one test).
//   - Built-in styles: Graph writes a built-in style as the p's own style
//     attribute, with no style name. A p styled as OneNote's "Quote" (grey
//     #595959, italic) is a quote block that keeps the italics and the
//     grey (gray, reported as Mapped like any colour); one styled as its
//     "Title" (Calibri Light 20pt) is a heading_1.
//   - Headings: h1–h6 onto heading_1…heading_3. Levels deeper than
//     Options.MaxHeading (default 3, the deepest in Notion API 2022-06-28)
//     are capped and reported (LossHeading). The heading's own OneNote
//     style is not recorded; a highlight on the heading is, like any.
//   - Rich text: bold, italic, underline, strikethrough from styles or
//     tags; links (entity-decoded href); Consolas (and other monospace
//     fonts) inside ordinary text as inline code. Adjacent runs with the
//     same formatting are merged.
//   - Colours: Notion has ten named colours, each as text or background.
//     A CSS colour maps to the nearest by hue and lightness (NotionColor):
//     near-black text and near-white highlights are the default, greys are
//     gray, dark oranges brown. Highlights (background-color) map to the
//     *_background colours. A run holds one colour, so a highlight wins
//     over a text colour (black text under a highlight keeps its text
//     and the highlight). Each approximation is reported as Mapped. A
//     code block holds plain text: the highlights and colours of a code
//     line are reported.
//   - Superscript and subscript: Notion has neither. <sup>/<sub> text is
//     written with Unicode superscript or subscript characters when every
//     character has one (2³⁰, log₂), otherwise as ^(text) or _(text).
//     Reported as Mapped.
//   - Lists: ul/ol items become bulleted/numbered list items; nested lists
//     at any depth become children. An item's text is its own inline
//     content and <p> wrappers; structure after it becomes children. An
//     empty li (<li><br /></li>) is an empty item.
//   - Note tags (data-tag, on the block or any span in its text): a
//     check-box shape (to-do, to-do-priority-1, …, client-request) on a
//     paragraph or list item makes a to_do, checked when :completed; a list
//     item keeps its children. Other shapes on a paragraph make a callout
//     whose icon is the first shape's emoji (TagEmoji: important ⭐,
//     question ❓, idea 💡, critical ❗, remember-for-later 🔖, …). Tags a
//     block's type does not show are kept as a marker: a first rich-text
//     item of their emojis, e.g. "📧 " on a callout tagged "idea,
//     send-in-email", "❗ " on a list item or heading, and the emojis as the
//     caption of a tagged image. A plain to-do has no marker. Every shape
//     has its own emoji, so SplitTagMarker and TagShape read the tags back.
//     Unknown shapes get 🏷️ and are reported.
//   - Code: a paragraph whose text is all Consolas is a code line;
//     consecutive code lines in an outline make one code block (language
//     "plain text"), each <br /> between them an empty line. Whitespace is
//     kept except trailing spaces. <pre> is a code block too.
//   - Quotes: a <cite> standing alone (in the outline, or the only content
//     of a p) is a quote; so is <blockquote>. The cite's own style applies
//     to its text (a highlight, colour or italics on it are kept or
//     reported), except the grey of OneNote's Citation style (#595959),
//     which the quote block stands for, as a heading block stands for its
//     heading style.
//   - Equations: a <math> standing alone is an equation block; inside text
//     it is an inline equation. MathMLToLaTeX translates mi, mn, mo, mrow,
//     msup, msub, msubsup, mfrac, msqrt, mroot, mfenced, munder, mover,
//     munderover, mtable, mtext, mspace, semantics (a TeX annotation wins)
//     and symbols (Greek, ∑ ∫ ≤ → ∞ …). Invisible operators are dropped.
//     A space typed in an equation (an NBSP operator, or an mtext of
//     only spaces) between two operands is "\ "; next to an operator, or
//     at either end, it is the padding OneNote's linear format types
//     around operators and is dropped (LaTeX spaces operators itself).
//     A space inside an identifier or a number is "\ "
//     (\mathrm{unit\ price}: math mode ignores a plain space), and mtext
//     keeps its leading and trailing space (\text{ Mac price}). LaTeX
//     longer than Notion's 1,000 characters becomes a code block
//     (language "latex"), reported.
//   - Tables: one table_row per tr, one cell per td, every row padded to
//     the widest; no column or row header (OneNote output has no th). Cell
//     border and width are not recorded; a cell background is reported.
//     Paragraphs in a cell
//     are joined by "\n". Lists, to-dos, callouts and nested tables in a
//     cell are flattened into its text (one line per block, a nested table
//     as rows of " | "-joined cells) and reported (LossCellFlattened);
//     images and files in a cell follow the table, captioned with their
//     cell ("Image from row 2, column 3"), fetched like any other, and
//     reported.
//   - Images: an image block per img, referring to the full-resolution
//     resource (data-fullres-src) unless Options.PreferWebImages. alt
//     never becomes page text. OneNote writes the text it recognises in a
//     picture (OCR) into alt, and Graph's output has one alt attribute,
//     documented as "the supplied alt text", with no attribute that tells
//     a person's alt text from OCR (the separate OCR data of OneNote's
//     own model, the Office JS ImageOcrData, is not in the HTML). So alt
//     is dropped by default (Options.ImageAlt AltDrop), and with
//     AltCaption it is the image's caption: whitespace collapsed, split
//     into items of 2,000 characters, cut (reported) past 99 items so a
//     tag marker still fits in Notion's 100; an alt that is a data: URI
//     is reported instead. Printout pages and split images are separate
//     images in reading order. An image inside a paragraph splits it.
//   - Attachments (<object>): a pdf block for application/pdf, audio or
//     video blocks for audio/* and video/*, a file block otherwise; the
//     name is data-attachment.
//   - Videos (<iframe>): a video block with the source page
//     (data-original-src) for known video sites, an embed block otherwise.
//   - Links: http and https links stay links. onenote: links to a page
//     keep the original URL as Link and carry the target page's GUID
//     (page-id, braces removed, case kept) as PageRef, for the writer to
//     write as text and its link pass to make a mention of the migrated
//     Notion page; they are also listed in Result.Links with their path in
//     the block tree. Notion refuses any other scheme
//     (blocks.LinkAllowed), so a file:, mailto:, teams:, ms-word: or
//     section onenote: link keeps its text followed by its target, "text
//     (file:///…)" (just the text when it already shows the target), and
//     is reported naming the scheme. Links that are not absolute URLs are
//     kept as text, reported.
//
// # Options that leave content out
//
// Options.SkipImages, SkipAttachments and SkipInk leave every image,
// every attachment (<object>, <embed>) or all ink out of the page: no
// block, nothing in Result.Resources (so a skipped image or attachment
// costs no Graph request), and one loss per option, of kind image-skipped,
// attachment-skipped or ink-skipped and severity Skipped, counted ("image
// not migrated (option skipImages)" ×5). Skipped is not a loss of the converter: the
// migration's report keeps it apart from what was lost. SkipInk ignores
// Options.InkML and reports each ink node as skipped.
//
// # Ink
//
// With Options.InkML (the InkML part of a content request with
// includeInkML=true), each ink group is split into spatial clusters (a real
// page keeps all of its ink in one trace group; ink.Group.Clusters), each
// cluster is drawn as an SVG image (package convert/ink: highlighters at
// their brush's transparency, beneath the pen strokes) and placed where it
// was drawn: a cluster whose vertical centre lies within an outline goes
// right after the block at that height (ink over text or beside it; block
// heights are estimated from their text, as outlines carry only top, left
// and width), any other cluster between the outlines in reading order by
// its top and left. A page that is only ink
// becomes a page of images. InkML coordinates are read as page positions,
// the same origin as the outlines' top and left (an inference: no source
// states it). The drawings are in Result.Ink, referred to by image blocks
// whose Resource has no URL. Graph leaves one comment per ink node and an
// ink node holds at least one stroke, so only comments beyond the number
// of strokes are reported, as ink Graph left out.
//
// # Notion's limits
//
// The blocks obey every payload rule that concerns a single block
// (Validate checks them): rich-text items are split at 2,000 UTF-16 units,
// never inside a surrogate pair; a text block with more than 100 rich-text
// items becomes several blocks of the same type (reported); a table cell
// with more than 100 items loses the formatting of the excess (reported);
// equations are at most 1,000 characters; URLs at most 2,000 (a longer link
// is dropped, reported); table rows are as wide as their table.
//
// # Losses
//
// Nothing is dropped silently. Each Loss has a kind, a severity (Mapped:
// the meaning is kept in another form; Degraded: structure or formatting
// is lost; Dropped: content is missing; Skipped: left out by an option),
// a detail, an excerpt of the text
// near it, and a count of repeats. Reported: ink (each
// <!-- InkNode is not supported --> without Options.InkML; with it, only ink
// the InkML leaves out or that cannot be read), other Graph export failures (other
// comments), unknown or unsupported elements (script, svg, …), media
// without a usable source, every U+FFFC object outside equations, flattened table cells, approximated colours, highlights and
// colours of code lines, sup/sub, capped headings, unknown tags, tag states a block cannot show,
// over-long equations and links, split blocks, and over-deep markup.
package convert
