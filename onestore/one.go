package onestore

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strings"
	"time"
	"unicode/utf8"
)

// JCIDs of [MS-ONE] 2.1.13 that this reader decodes.
const (
	jcidSectionNode           = 0x00060007
	jcidPageSeriesNode        = 0x00060008
	jcidPageNode              = 0x0006000B
	jcidOutlineNode           = 0x0006000C
	jcidOutlineElementNode    = 0x0006000D
	jcidRichTextOENode        = 0x0006000E
	jcidImageNode             = 0x00060011
	jcidNumberListNode        = 0x00060012
	jcidInkContainer          = 0x00060014
	jcidOutlineGroup          = 0x00060019
	jcidTableNode             = 0x00060022
	jcidTableRowNode          = 0x00060023
	jcidTableCellNode         = 0x00060024
	jcidTitleNode             = 0x0006002C
	jcidEmbeddedFileNode      = 0x00060035
	jcidPageManifestNode      = 0x00060037
	jcidMathInlineObject      = 0x00060040
	jcidIFrameNode            = 0x00060058
	jcidPageMetaData          = 0x00020030
	jcidConflictPageMetaData  = 0x00020049
	jcidAuthorContainer       = 0x00120001
	jcidParagraphStyleObject  = 0x0012004D
	jcidNoteTagSharedDefinion = 0x00120043
)

// PropertyIDs of [MS-ONE] 2.1.12 (type bits included).
const (
	propAuthor                       = 0x1C001D75
	propAuthorMostRecent             = 0x20001D79
	propAuthorOriginal               = 0x20001D78
	propBold                         = 0x08001C04
	propCachedTitleString            = 0x1C001CF3
	propCellBackgroundColor          = 0x14001E26
	propChildGraphSpaceElementNodes  = 0x2C001D63
	propContentChildNodes            = 0x24001C1F
	propElementChildNodes            = 0x24001C20
	propEmbeddedFileContainer        = 0x20001D9B
	propEmbeddedFileName             = 0x1C001D9C
	propFont                         = 0x1C001C0A
	propFontColor                    = 0x14001C0C
	propFontSize                     = 0x10001C0B
	propHighlight                    = 0x14001C0D
	propHyperlink                    = 0x08001E14
	propImageAltText                 = 0x1C001E58
	propImageFilename                = 0x1C001DD7
	propIsConflictPage               = 0x08001D7C
	propItalic                       = 0x08001C05
	propLastModifiedTime             = 0x14001D7A
	propLastModifiedTimeStamp        = 0x18001D77
	propLayoutMaxWidth               = 0x14001C1B
	propListNodes                    = 0x24001C26
	propListRestart                  = 0x14001CB7
	propNoteTagCompleted             = 0x1400346F
	propNoteTagDefinitionOid         = 0x20003488
	propNoteTagLabel                 = 0x1C003468
	propNoteTagShape                 = 0x10003464
	propNoteTagStates                = 0x40003489
	propNotebookManagementEntityGUID = 0x1C001C30
	propNumberListFormat             = 0x1C001C1A
	propOffsetFromParentHoriz        = 0x14001C14
	propOffsetFromParentVert         = 0x14001C15
	propPageLevel                    = 0x14001DFF
	propParagraphStyle               = 0x2000342C
	propParagraphStyleID             = 0x1C00345A
	propPictureContainer             = 0x20001C3F
	propPictureHeight                = 0x140034CE
	propPictureWidth                 = 0x140034CD
	propRichEditTextUnicode          = 0x1C001C22
	propSourceFilepath               = 0x1C001D9D
	propStrikethrough                = 0x08001C07
	propStructureElementChildNodes   = 0x24001D5F
	propSubscript                    = 0x08001C09
	propSuperscript                  = 0x08001C08
	propTableBordersVisible          = 0x08001D5E
	propTextExtendedASCII            = 0x1C003498
	propTextRunFormatting            = 0x24001E13
	propTextRunIndex                 = 0x1C001E12
	propTopologyCreationTimeStamp    = 0x18001C65
	propUnderline                    = 0x08001C06
	propWzHyperlinkURL               = 0x1C001E20
	propInkStrokes                   = 0x24003416
	propInkData                      = 0x20003415
	propIsTitleDate                  = 0x08001CB5
	propMathFormatting               = 0x08003401
	propActionItemStatus             = 0x10003470
	propIsTitleTime                  = 0x08001C87
)

// halfInch is the unit of outline offsets and widths ([MS-ONE]
// OffsetFromParentHoriz, LayoutMaxWidth) in points.
const halfInch = 36

// maxDepth bounds the nesting of content this reader follows; a file
// whose references loop is refused rather than followed forever.
const maxDepth = 64

// pageSpace reads the objects of one page's object space.
type pageSpace struct {
	s     *Store
	rev   *revision
	page  *Page
	seen  int // objects visited, bounded by the file's size
	cache map[*objectEntry]*Object
}

func (ps *pageSpace) object(id ExtendedGUID) (*Object, error) {
	ps.seen++
	// A page's objects form a tree, each object a few dozen bytes of the
	// file: more visits than that means references that loop or fan in.
	if int64(ps.seen) > ps.s.f.size/16+1024 {
		return nil, formatErr("PropertySet", 0, "references between objects that do not loop")
	}
	e := ps.rev.lookup(id)
	if e == nil {
		return nil, formatErr("ObjectDeclaration2RefCountFND", 0, "a declaration of object "+id.String())
	}
	if o, ok := ps.cache[e]; ok {
		return o, nil
	}
	o, err := ps.s.decodeObject(e)
	if err != nil {
		return nil, err
	}
	if ps.cache == nil {
		ps.cache = map[*objectEntry]*Object{}
	}
	ps.cache[e] = o
	return o, nil
}

func (ps *pageSpace) loss(kind, what string) {
	ps.page.Losses = append(ps.page.Losses, Loss{Kind: kind, What: what})
}

// sectionPages lists the page object spaces of a section in order:
// jcidSectionNode, its jcidPageSeriesNode children, and their
// ChildGraphSpaceElementNodes ([MS-ONE] 2.1.5 and 2.2.18).
func (s *Store) sectionPages() ([]ExtendedGUID, error) {
	sp := s.spaces[s.root]
	if sp.encrypted {
		return nil, ErrEncrypted
	}
	rev := sp.current(roleContent)
	if rev == nil {
		return nil, formatErr("RevisionManifestListStartFND", 0, "a revision of the section's root object space")
	}
	rootID, ok := rev.rootObject(roleContent)
	if !ok {
		return nil, formatErr("RootObjectReference3FND", 0, "the section's root object")
	}
	ps := &pageSpace{s: s, rev: rev, page: &Page{}}
	root, err := ps.object(rootID)
	if err != nil {
		return nil, err
	}
	if root.JCID != jcidSectionNode {
		return nil, formatErr("jcidSectionNode", int64(root.entry.ref.Stp), fmt.Sprintf("a section node, found JCID 0x%08X", root.JCID))
	}
	var spaces []ExtendedGUID
	for _, id := range root.Props.refs(propElementChildNodes) {
		series, err := ps.object(id)
		if err != nil {
			return nil, err
		}
		if series.JCID != jcidPageSeriesNode {
			continue
		}
		for _, sid := range series.Props.refs(propChildGraphSpaceElementNodes) {
			if s.isPageSpace(sid) {
				spaces = append(spaces, sid)
			}
		}
	}
	return spaces, nil
}

// isPageSpace reports whether an object space holds a page: its content
// root is a jcidPageManifestNode. A page series also lists other spaces
// (a page's version history), which are not pages.
func (s *Store) isPageSpace(id ExtendedGUID) bool {
	sp, ok := s.spaces[id]
	if !ok {
		return true // readPage names the missing space
	}
	rev := sp.current(roleContent)
	if rev == nil {
		return true
	}
	root, ok := rev.rootObject(roleContent)
	if !ok {
		return true
	}
	e := rev.lookup(root)
	return e == nil || e.jcid == jcidPageManifestNode
}

// pageGUID reads a page's NotebookManagementEntityGuid from its metadata.
func (s *Store) pageGUID(spaceID ExtendedGUID) (GUID, error) {
	var g GUID
	sp, ok := s.spaces[spaceID]
	if !ok {
		return g, formatErr("ObjectSpaceManifestListReferenceFND", 0, "the page's object space "+spaceID.String())
	}
	rev := sp.current(roleContent)
	if rev == nil {
		return g, nil
	}
	id, ok := rev.rootObject(roleMetadata)
	if !ok {
		return g, nil
	}
	ps := &pageSpace{s: s, rev: rev, page: &Page{}}
	meta, err := ps.object(id)
	if err != nil {
		return g, err
	}
	copy(g[:], meta.Props.bytes(propNotebookManagementEntityGUID))
	return g, nil
}

// readPage decodes one page's object space: its metadata and, when
// content is set, its content.
func (s *Store) readPage(spaceID ExtendedGUID, order int) (*Page, error) {
	sp, ok := s.spaces[spaceID]
	if !ok {
		return nil, formatErr("ObjectSpaceManifestListReferenceFND", 0, "the page's object space "+spaceID.String())
	}
	rev := sp.current(roleContent)
	if rev == nil {
		return nil, formatErr("RevisionManifestListStartFND", 0, "a revision of page object space "+spaceID.String())
	}
	page := &Page{Info: PageInfo{Order: order}}
	ps := &pageSpace{s: s, rev: rev, page: page}
	if id, ok := rev.rootObject(roleMetadata); ok {
		meta, err := ps.object(id)
		if err != nil {
			return nil, err
		}
		p := meta.Props
		page.Info.Title = p.str(propCachedTitleString)
		copy(page.Info.GUID[:], p.bytes(propNotebookManagementEntityGUID))
		if lvl, ok := p.u32(propPageLevel); ok {
			// PageLevel counts from 1 for a page; Graph's level from 0.
			page.Info.Level = max(int(int32(lvl))-1, 0)
		}
		if t, ok := p.u64(propTopologyCreationTimeStamp); ok {
			page.Info.Created = fileTime(t)
		}
		page.Info.Conflict = meta.JCID == jcidConflictPageMetaData || p.boolean(propIsConflictPage)
	}
	if id, ok := rev.rootObject(roleVersions); ok {
		meta, err := ps.object(id)
		if err != nil {
			return nil, err
		}
		if t, ok := meta.Props.u64(propLastModifiedTimeStamp); ok {
			page.Info.Modified = fileTime(t)
		}
	}
	id, ok := rev.rootObject(roleContent)
	if !ok {
		return nil, formatErr("RootObjectReference3FND", 0, "the page's root object")
	}
	manifest, err := ps.object(id)
	if err != nil {
		return nil, err
	}
	for _, pid := range manifest.Props.refs(propContentChildNodes) {
		node, err := ps.object(pid)
		if err != nil {
			return nil, err
		}
		if node.JCID != jcidPageNode {
			continue
		}
		if err := ps.pageNode(node); err != nil {
			return nil, err
		}
	}
	if page.Info.Modified.IsZero() {
		page.Info.Modified = page.Info.Created
	}
	return page, nil
}

func (ps *pageSpace) pageNode(node *Object) error {
	page := ps.page
	if t, ok := node.Props.u32(propLastModifiedTime); ok && page.Info.Modified.IsZero() {
		page.Info.Modified = time32(t)
	}
	ps.author(node.Props)
	for _, id := range node.Props.refs(propStructureElementChildNodes) {
		title, err := ps.object(id)
		if err != nil {
			return err
		}
		for _, oid := range title.Props.refs(propElementChildNodes) {
			o, err := ps.outline(oid, 0)
			if err != nil {
				return err
			}
			if o != nil {
				page.Title = append(page.Title, o.Elements...)
			}
		}
	}
	if page.Info.Title == "" {
		var text []*Element
		for _, el := range page.Title {
			if !el.titleDateTime {
				text = append(text, el)
			}
		}
		page.Info.Title = plainText(text)
	}
	for _, id := range node.Props.refs(propElementChildNodes) {
		child, err := ps.object(id)
		if err != nil {
			return err
		}
		switch child.JCID {
		case jcidOutlineNode:
			o, err := ps.outline(id, 0)
			if err != nil {
				return err
			}
			page.Outlines = append(page.Outlines, o)
		default:
			// An image, ink or a file placed on the page outside an
			// outline: an outline of its own at its position.
			c, err := ps.content(child, 0)
			if err != nil {
				return err
			}
			if c != nil {
				o := &Outline{Elements: []*Element{{Content: []Content{*c}}}}
				o.X, _ = child.Props.f32(propOffsetFromParentHoriz)
				o.Y, _ = child.Props.f32(propOffsetFromParentVert)
				o.X, o.Y = o.X*halfInch, o.Y*halfInch
				page.Outlines = append(page.Outlines, o)
			}
		}
	}
	return nil
}

// outline decodes a jcidOutlineNode.
func (ps *pageSpace) outline(id ExtendedGUID, depth int) (*Outline, error) {
	node, err := ps.object(id)
	if err != nil {
		return nil, err
	}
	if node.JCID != jcidOutlineNode {
		return nil, nil
	}
	o := &Outline{}
	if x, ok := node.Props.f32(propOffsetFromParentHoriz); ok {
		o.X = x * halfInch
	}
	if y, ok := node.Props.f32(propOffsetFromParentVert); ok {
		o.Y = y * halfInch
	}
	if w, ok := node.Props.f32(propLayoutMaxWidth); ok {
		o.Width = w * halfInch
	}
	o.Elements, err = ps.elements(node.Props.refs(propElementChildNodes), depth+1)
	return o, err
}

// elements decodes outline elements and outline groups.
func (ps *pageSpace) elements(ids []ExtendedGUID, depth int) ([]*Element, error) {
	if depth > maxDepth {
		return nil, formatErr("jcidOutlineElementNode", 0, fmt.Sprintf("outlines nested at most %d deep", maxDepth))
	}
	var out []*Element
	for _, id := range ids {
		node, err := ps.object(id)
		if err != nil {
			return nil, err
		}
		switch node.JCID {
		case jcidOutlineGroup:
			els, err := ps.elements(node.Props.refs(propElementChildNodes), depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, els...)
		case jcidOutlineElementNode:
			el, err := ps.element(node, depth)
			if err != nil {
				return nil, err
			}
			out = append(out, el)
		default:
			ps.loss("unsupported-content", fmt.Sprintf("outline child of type 0x%08X", node.JCID))
		}
	}
	return out, nil
}

// element decodes a jcidOutlineElementNode.
func (ps *pageSpace) element(node *Object, depth int) (*Element, error) {
	el := &Element{titleDateTime: node.Props.boolean(propIsTitleDate) || node.Props.boolean(propIsTitleTime)}
	ps.author(node.Props)
	for _, id := range node.Props.refs(propContentChildNodes) {
		child, err := ps.object(id)
		if err != nil {
			return nil, err
		}
		c, err := ps.content(child, depth)
		if err != nil {
			return nil, err
		}
		if c != nil {
			el.Content = append(el.Content, *c)
		}
		el.titleDateTime = el.titleDateTime || child.Props.boolean(propIsTitleDate) || child.Props.boolean(propIsTitleTime)
		el.Tags = append(el.Tags, ps.noteTags(child.Props)...)
	}
	el.Tags = append(el.Tags, ps.noteTags(node.Props)...)
	for _, id := range node.Props.refs(propListNodes) {
		list, err := ps.object(id)
		if err != nil {
			return nil, err
		}
		if list.JCID == jcidNumberListNode {
			el.List = listMarker(list.Props)
		}
	}
	var err error
	el.Children, err = ps.elements(node.Props.refs(propElementChildNodes), depth+1)
	return el, err
}

// content decodes one content object of an outline element.
func (ps *pageSpace) content(node *Object, depth int) (*Content, error) {
	p := node.Props
	switch node.JCID {
	case jcidRichTextOENode:
		para, err := ps.richText(node)
		if err != nil {
			return nil, err
		}
		return &Content{Paragraph: para}, nil
	case jcidTableNode:
		t, err := ps.table(node, depth)
		if err != nil {
			return nil, err
		}
		return &Content{Table: t}, nil
	case jcidImageNode:
		img := &Image{Alt: p.str(propImageAltText), Filename: p.str(propImageFilename), OCR: p.str(propRichEditTextUnicode)}
		img.Width, _ = p.f32(propPictureWidth)
		img.Height, _ = p.f32(propPictureHeight)
		if id, ok := p.ref(propPictureContainer); ok {
			res, err := ps.resource(id, img.Filename)
			if err != nil {
				return nil, err
			}
			if res != nil {
				img.Resource = res.ID
			}
		}
		ps.page.Info.Images++
		return &Content{Image: img}, nil
	case jcidEmbeddedFileNode:
		f := &EmbeddedFile{Name: p.str(propEmbeddedFileName), Source: p.str(propSourceFilepath)}
		if id, ok := p.ref(propEmbeddedFileContainer); ok {
			res, err := ps.resource(id, f.Name)
			if err != nil {
				return nil, err
			}
			if res != nil {
				f.Resource = res.ID
			}
		}
		ps.page.Info.Files++
		return &Content{File: f}, nil
	case jcidInkContainer:
		ps.page.Info.Ink++
		return &Content{Ink: ps.ink(node)}, nil
	case jcidMathInlineObject:
		ps.loss("equation", "an equation")
		return nil, nil
	case jcidIFrameNode:
		ps.loss("unsupported-embed", "an embedded web frame")
		return nil, nil
	}
	ps.loss("unsupported-content", fmt.Sprintf("content of type 0x%08X", node.JCID))
	return nil, nil
}

// resource turns a file data object into a Resource of the page.
func (ps *pageSpace) resource(id ExtendedGUID, name string) (*Resource, error) {
	e := ps.rev.lookup(id)
	if e == nil {
		return nil, formatErr("ObjectDeclarationFileData3RefCountFND", 0, "a declaration of file data object "+id.String())
	}
	if r := ps.page.Resource(resourceID(id)); r != nil {
		return r, nil
	}
	if e.fileRef == "" {
		ps.loss("unsupported-content", "a picture or file without data")
		return nil, nil
	}
	off, n, err := ps.s.fileDataRange(e)
	if err != nil {
		if _, ok := err.(*UnsupportedError); ok {
			ps.loss("attachment-skipped", err.Error())
			return nil, nil
		}
		return nil, err
	}
	r := &Resource{ID: resourceID(id), Name: name, Extension: e.ext, Size: n, section: io.NewSectionReader(ps.s.f.r, off, n)}
	if r.Extension == "" {
		// The packaged layout keeps no extension with the data: the
		// bytes say what they are.
		head := make([]byte, min(n, 16))
		if _, err := io.ReadFull(r.section, head); err == nil {
			r.Extension = sniffExtension(head)
		}
	}
	ps.page.Resources = append(ps.page.Resources, r)
	return r, nil
}

// table decodes a jcidTableNode: rows of cells of outline elements.
func (ps *pageSpace) table(node *Object, depth int) (*Table, error) {
	t := &Table{Borders: node.Props.boolean(propTableBordersVisible)}
	for _, rid := range node.Props.refs(propElementChildNodes) {
		row, err := ps.object(rid)
		if err != nil {
			return nil, err
		}
		var cells []*Cell
		for _, cid := range row.Props.refs(propElementChildNodes) {
			cell, err := ps.object(cid)
			if err != nil {
				return nil, err
			}
			c := &Cell{Shading: colorRef(cell.Props.bytes(propCellBackgroundColor))}
			c.Elements, err = ps.elements(cell.Props.refs(propElementChildNodes), depth+1)
			if err != nil {
				return nil, err
			}
			cells = append(cells, c)
		}
		t.Rows = append(t.Rows, cells)
	}
	return t, nil
}

// richText decodes a jcidRichTextOENode: its text split into runs at
// TextRunIndex, each with its jcidParagraphStyleObject.
func (ps *pageSpace) richText(node *Object) (*Paragraph, error) {
	p := node.Props
	para := &Paragraph{Style: "p"}
	if id, ok := p.ref(propParagraphStyle); ok {
		style, err := ps.object(id)
		if err != nil {
			return nil, err
		}
		if s := style.Props.str(propParagraphStyleID); s != "" {
			para.Style = s
		}
	}
	var text []rune
	if raw, ok := p.get(propRichEditTextUnicode); ok {
		text = []rune(utf16String(raw.Data))
	} else {
		for _, b := range p.bytes(propTextExtendedASCII) {
			text = append(text, rune(b)) // Latin-1 extended ASCII
		}
		for len(text) > 0 && text[len(text)-1] == 0 {
			text = text[:len(text)-1]
		}
	}
	idx := p.bytes(propTextRunIndex)
	styles := p.refs(propTextRunFormatting)
	start := 0
	link := ""
	sawMath := false
	ps.seen += len(idx) / 4
	for i := 0; i <= len(idx)/4; i++ {
		end := len(text)
		if i < len(idx)/4 {
			end = min(int(binary.LittleEndian.Uint32(idx[4*i:])), len(text))
		}
		if end < start {
			end = start
		}
		run := Run{Text: string(text[start:end])}
		start = end
		if i < len(styles) {
			style, err := ps.object(styles[i])
			if err != nil {
				return nil, err
			}
			applyStyle(&run, style.Props)
			if style.Props.boolean(propMathFormatting) && !sawMath {
				sawMath = true
				ps.loss("equation", "an equation, kept as its text")
			}
			if style.Props.boolean(propHyperlink) {
				if u, rest, ok := hyperlinkField(run.Text); ok {
					link, run.Text = u, rest
				}
				if u := style.Props.str(propWzHyperlinkURL); u != "" {
					link = u
				}
				run.Link = link
			} else {
				link = ""
			}
		}
		if run.Text != "" {
			para.Runs = append(para.Runs, run)
		}
	}
	return para, nil
}

// hyperlinkField splits the field code OneNote stores before a link's
// text: U+FDDF, then HYPERLINK "url", then the text shown.
func hyperlinkField(s string) (url, rest string, ok bool) {
	const prefix = "\uFDDFHYPERLINK \""
	if !strings.HasPrefix(s, prefix) {
		return "", s, false
	}
	s = s[len(prefix):]
	i := strings.IndexByte(s, '"')
	if i < 0 {
		return s, "", true
	}
	return s[:i], s[i+1:], true
}

// applyStyle copies a jcidParagraphStyleObject's character formatting.
func applyStyle(r *Run, p PropertySet) {
	r.Bold = p.boolean(propBold)
	r.Italic = p.boolean(propItalic)
	r.Underline = p.boolean(propUnderline)
	r.Strike = p.boolean(propStrikethrough)
	r.Superscript = p.boolean(propSuperscript)
	r.Subscript = p.boolean(propSubscript)
	r.Color = colorRef(p.bytes(propFontColor))
	r.Highlight = colorRef(p.bytes(propHighlight))
	r.Font = p.str(propFont)
	if v, ok := p.u32(propFontSize); ok {
		r.Size = float32(v) / 2 // half-points
	}
}

// colorRef formats a COLORREF ([MS-ONE] 2.2.?): red, green, blue and a
// fourth byte that is 0xFF for "automatic" (no colour).
func colorRef(b []byte) string {
	if len(b) < 4 || b[3] == 0xFF {
		return ""
	}
	return fmt.Sprintf("#%02x%02x%02x", b[0], b[1], b[2])
}

// listMarker reads a jcidNumberListNode. A NumberListFormat whose
// characters include a number placeholder (U+FFF0 to U+FFFF... below
// U+0010, as OneNote writes them) is a numbered list.
func listMarker(p PropertySet) *ListMarker {
	f := p.str(propNumberListFormat)
	m := &ListMarker{Format: f}
	for _, r := range f {
		if r < 0x20 && r != 0 || r == utf8.RuneError {
			m.Ordered = true
		}
	}
	if v, ok := p.u32(propListRestart); ok {
		m.Restart = int(int32(v))
	}
	return m
}

// noteTags reads NoteTagStates ([MS-ONE] 2.2.?): each state names a
// jcidNoteTagSharedDefinitionContainer and says whether it is completed.
func (ps *pageSpace) noteTags(p PropertySet) []NoteTag {
	var tags []NoteTag
	for _, st := range p.sets(propNoteTagStates) {
		tag := NoteTag{}
		// ActionItemStatus ([MS-ONE] 2.3.?): bit 0 says completed. Without
		// it, a completion time says so.
		if v, ok := st.u32(propActionItemStatus); ok {
			tag.Checked = v&1 != 0
		} else if _, ok := st.u32(propNoteTagCompleted); ok {
			tag.Checked = true
		}
		if id, ok := st.ref(propNoteTagDefinitionOid); ok {
			if def, err := ps.object(id); err == nil {
				tag.Label = def.Props.str(propNoteTagLabel)
				if v, ok := def.Props.u32(propNoteTagShape); ok {
					tag.Shape = int(v)
				}
			}
		}
		tag.Checkable = isCheckBoxShape(tag.Shape)
		tags = append(tags, tag)
	}
	return tags
}

// isCheckBoxShape reports the NoteTagShape values ([MS-ONE] 2.3.?) that
// are check boxes: a to-do.
func isCheckBoxShape(s int) bool {
	switch s {
	case 3, 8, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47:
		return true
	}
	return false
}

// author records the name of the object's original and most recent author.
func (ps *pageSpace) author(p PropertySet) {
	for _, prop := range []uint32{propAuthorOriginal, propAuthorMostRecent} {
		id, ok := p.ref(prop)
		if !ok {
			continue
		}
		a, err := ps.object(id)
		if err != nil || a.JCID != jcidAuthorContainer {
			continue
		}
		name := a.Props.str(propAuthor)
		if name == "" {
			continue
		}
		found := false
		for _, n := range ps.page.Info.Authors {
			found = found || n == name
		}
		if !found {
			ps.page.Info.Authors = append(ps.page.Info.Authors, name)
		}
	}
}

// plainText joins the text of elements' paragraphs.
func plainText(els []*Element) string {
	var parts []string
	for _, el := range els {
		for _, c := range el.Content {
			if c.Paragraph != nil {
				if t := strings.TrimSpace(c.Paragraph.Text()); t != "" {
					parts = append(parts, t)
				}
			}
		}
	}
	return strings.Join(parts, " ")
}

// fileTime converts a FILETIME (100 ns since 1601-01-01 UTC).
func fileTime(t uint64) time.Time {
	if t == 0 || t > math.MaxInt64 {
		return time.Time{}
	}
	const epochDiff = 116444736000000000 // 1601 to 1970 in 100 ns
	if t < epochDiff {
		return time.Time{}
	}
	d := t - epochDiff
	return time.Unix(int64(d/1e7), int64(d%1e7)*100).UTC()
}

// time32 converts a Time32 ([MS-ONE] 2.3.1): seconds since 1980-01-01 UTC.
func time32(t uint32) time.Time {
	return time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(t) * time.Second)
}

// resourceID names a page's resource in a URL-safe form: the object's
// GUID and number, e.g. "0B1EC700-0000-0000-0000-000000000000-12".
func resourceID(id ExtendedGUID) string {
	return fmt.Sprintf("%s-%d", strings.Trim(id.GUID.String(), "{}"), id.N)
}

// sniffExtension names the file type of an image or document by its
// first bytes, or "" when it is none of these.
func sniffExtension(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return ".png"
	case bytes.HasPrefix(b, []byte{0xFF, 0xD8, 0xFF}):
		return ".jpg"
	case bytes.HasPrefix(b, []byte("GIF8")):
		return ".gif"
	case bytes.HasPrefix(b, []byte("BM")):
		return ".bmp"
	case bytes.HasPrefix(b, []byte("%PDF")):
		return ".pdf"
	case bytes.HasPrefix(b, []byte{1, 0, 0, 0}) && len(b) >= 4:
		return ".emf"
	case bytes.HasPrefix(b, []byte("II*\x00")), bytes.HasPrefix(b, []byte("MM\x00*")):
		return ".tif"
	}
	return ""
}
