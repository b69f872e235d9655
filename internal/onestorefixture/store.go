package onestorefixture

import (
	"bytes"
	"encoding/binary"
	"unicode/utf16"
)

// The revision store layout ([MS-ONESTORE] 2.1 to 2.7): one revision per
// object space, one object group per revision, and one fragment per file
// node list.

// wprop is a property to write: exactly one of its value fields is used,
// as its type (in id) says.
type wprop struct {
	id   uint32
	b    bool
	data []byte
	refs []xguid
	sets [][]wprop
}

type wobject struct {
	id       xguid
	jcid     uint32
	props    []wprop
	fileData []byte // for a file data object
	ext      string
}

type wspace struct {
	id      xguid
	objects []*wobject
	roots   map[uint32]xguid // root role -> object
}

type wfile struct {
	encrypted bool // the root space declares an encryption key
	// tocNodes writes revisions as OneNote writes a .onetoc2: a
	// RevisionManifestStart4FND with its own global ID table,
	// ObjectDeclarationWithRefCountFNDX and RootObjectReference2FNDX, no
	// object groups.
	tocNodes bool
	fileType GUID
	root     xguid
	spaces   []*wspace
	out      bytes.Buffer
	lists    []uint32 // list IDs written, with their counts below
	counts   []uint32
	nextList uint32
}

func (w *wfile) alloc(p []byte) chunkRef {
	off := w.out.Len()
	w.out.Write(p)
	for w.out.Len()%8 != 0 {
		w.out.WriteByte(0)
	}
	return chunkRef{Stp: uint64(off), Cb: uint64(len(p))}
}

// wnode is a FileNode to write.
type wnode struct {
	id   uint16
	base uint32 // BaseType: 0 none, 1 data, 2 list
	ref  chunkRef
	data []byte
}

func (w *wfile) list(nodes []wnode) chunkRef {
	w.nextList++
	id := w.nextList + 0x10
	var b bytes.Buffer
	le := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	le(uint64(fileNodeListHeaderMagic))
	le(id)
	le(uint32(0))
	for _, n := range nodes {
		size := 4 + len(n.data)
		if n.base != 0 {
			size += 12
		}
		h := uint32(n.id) | uint32(size)<<10 | n.base<<27 // StpFormat 0, CbFormat 0
		le(h)
		if n.base != 0 {
			le(n.ref.Stp)
			le(uint32(n.ref.Cb))
		}
		b.Write(n.data)
	}
	le(uint64(0xFFFFFFFFFFFFFFFF)) // nextFragment: fcrNil
	le(uint32(0))
	le(uint64(fileNodeListFooterMagic))
	w.lists = append(w.lists, id)
	w.counts = append(w.counts, uint32(len(nodes)))
	return w.alloc(b.Bytes())
}

func le(parts ...any) []byte {
	var b bytes.Buffer
	for _, p := range parts {
		_ = binary.Write(&b, binary.LittleEndian, p)
	}
	return b.Bytes()
}

func exg(e xguid) []byte { return le(e.GUID, e.N) }

// gtable assigns global ID table indexes to GUIDs.
type gtable struct {
	idx   map[GUID]uint32
	order []GUID
}

func (g *gtable) compact(e xguid) uint32 {
	if e.IsZero() {
		return 0
	}
	i, ok := g.idx[e.GUID]
	if !ok {
		i = uint32(len(g.order)) + 1
		g.idx[e.GUID] = i
		g.order = append(g.order, e.GUID)
	}
	return i<<8 | e.N&0xFF
}

// propSet encodes an ObjectSpaceObjectPropSet.
func propSet(props []wprop, g *gtable) []byte {
	b, _, _ := propSetRefs(props, g)
	return b
}

// propSetRefs encodes a property set and returns, besides, the object and
// object space references in the order of their streams: the packaged
// layout lists them by position.
func propSetRefs(props []wprop, g *gtable) ([]byte, []xguid, []xguid) {
	var oids, osids []uint32
	var oidRefs, osidRefs []xguid
	var body bytes.Buffer
	var enc func(props []wprop)
	enc = func(props []wprop) {
		body.Write(le(uint16(len(props))))
		for _, p := range props {
			id := p.id
			if p.b {
				id |= 1 << 31
			}
			body.Write(le(id))
		}
		for _, p := range props {
			switch p.id >> 26 & 0x1F {
			case ptOneByte, ptTwoBytes, ptFourBytes, ptEightBytes:
				body.Write(p.data)
			case ptLengthPrefixed:
				body.Write(le(uint32(len(p.data))))
				body.Write(p.data)
			case ptObjectID:
				oids = append(oids, g.compact(p.refs[0]))
				oidRefs = append(oidRefs, p.refs[0])
			case ptObjectIDs:
				body.Write(le(uint32(len(p.refs))))
				for _, r := range p.refs {
					oids = append(oids, g.compact(r))
					oidRefs = append(oidRefs, r)
				}
			case ptObjectSpaceIDs:
				body.Write(le(uint32(len(p.refs))))
				for _, r := range p.refs {
					osids = append(osids, g.compact(r))
					osidRefs = append(osidRefs, r)
				}
			case ptPropertyValues:
				body.Write(le(uint32(len(p.sets))))
				if len(p.sets) > 0 {
					body.Write(le(uint32(ptPropertySet << 26)))
					for _, s := range p.sets {
						enc(s)
					}
				}
			}
		}
	}
	enc(props)
	var b bytes.Buffer
	h := uint32(len(oids))
	if len(osids) == 0 {
		h |= 1 << 31 // OsidStreamNotPresent
	}
	b.Write(le(h))
	for _, o := range oids {
		b.Write(le(o))
	}
	if len(osids) > 0 {
		b.Write(le(uint32(len(osids))))
		for _, o := range osids {
			b.Write(le(o))
		}
	}
	b.Write(body.Bytes())
	return b.Bytes(), oidRefs, osidRefs
}

// bytes lays the file out and returns it.
func (w *wfile) bytes() []byte {
	w.out.Write(make([]byte, headerSize))
	var rootNodes []wnode
	var fileStore []wnode
	for si, sp := range w.spaces {
		g := &gtable{idx: map[GUID]uint32{}}
		var decls []wnode
		for _, o := range sp.objects {
			if o.fileData != nil {
				fguid := GUID{0xF0, byte(si), byte(o.id.N), byte(o.id.N >> 8)}
				var blob bytes.Buffer
				blob.Write(le(guidFileDataHeader, uint64(len(o.fileData)), uint32(0), uint64(0)))
				blob.Write(o.fileData)
				for blob.Len()%8 != 0 {
					blob.WriteByte(0)
				}
				blob.Write(le(mustGUID("{71FBA722-0F79-4A0B-BB13-899256426B24}")))
				fileStore = append(fileStore, wnode{id: fndFileDataStoreObjectReference, base: 1, ref: w.alloc(blob.Bytes()), data: le(fguid)})
				name := utf16.Encode([]rune("<ifndf>" + fguid.String()))
				ext := utf16.Encode([]rune(o.ext))
				decls = append(decls, wnode{id: fndObjectDeclarationFileData3Ref,
					data: le(g.compact(o.id), o.jcid, uint8(1), uint32(len(name)), name, uint32(len(ext)), ext)})
				continue
			}
			ref := w.alloc(propSet(o.props, g))
			decls = append(decls, wnode{id: fndObjectDeclaration2RefCount, base: 1, ref: ref,
				data: le(g.compact(o.id), o.jcid, uint8(0), uint8(1))})
		}
		group := []wnode{{id: fndObjectGroupStart, data: exg(xguid{GUID: sp.id.GUID, N: 99})}, {id: fndGlobalIDTableStart2}}
		for i, gu := range g.order {
			group = append(group, wnode{id: fndGlobalIDTableEntry, data: le(uint32(i+1), gu)})
		}
		group = append(group, wnode{id: fndGlobalIDTableEnd})
		group = append(group, decls...)
		group = append(group, wnode{id: fndObjectGroupEnd})
		rid := xguid{GUID: sp.id.GUID, N: 1000}
		var revs []wnode
		if w.tocNodes {
			revs = w.tocRevision(sp, rid)
		} else {
			groupRef := w.list(group)
			revs = []wnode{
				{id: fndRevisionManifestListStart, data: exg(sp.id)},
				{id: fndRevisionManifestStart6, data: append(append(exg(rid), exg(xguid{})...), le(uint32(1), uint16(0))...)},
				{id: fndObjectGroupListReference, base: 2, ref: groupRef, data: exg(xguid{GUID: sp.id.GUID, N: 99})},
			}
			for _, role := range []uint32{1, 2, 4} {
				if id, ok := sp.roots[role]; ok {
					revs = append(revs, wnode{id: fndRootObjectReference3, data: append(exg(id), le(role)...)})
				}
			}
		}
		revs = append(revs, wnode{id: fndRevisionManifestEnd})
		if w.encrypted && si == 0 {
			revs = append(revs, wnode{id: fndObjectDataEncryptionKeyV2, base: 1, ref: w.alloc(make([]byte, 32))})
		}
		revList := w.list(revs)
		osList := w.list([]wnode{{id: fndObjectSpaceManifestListStart, data: exg(sp.id)}, {id: fndRevisionManifestListReference, base: 2, ref: revList}})
		rootNodes = append(rootNodes, wnode{id: fndObjectSpaceManifestListReference, base: 2, ref: osList, data: exg(sp.id)})
	}
	rootNodes = append(rootNodes, wnode{id: fndObjectSpaceManifestRoot, data: exg(w.root)})
	if len(fileStore) > 0 {
		rootNodes = append(rootNodes, wnode{id: fndFileDataStoreListReference, base: 2, ref: w.list(fileStore)})
	}
	rootRef := w.list(rootNodes)
	var log bytes.Buffer
	for i, id := range w.lists {
		log.Write(le(id, w.counts[i]))
	}
	log.Write(le(uint32(1), uint32(0))) // the sentinel: one committed transaction
	log.Write(le(uint64(0xFFFFFFFFFFFFFFFF), uint32(0)))
	logRef := w.alloc(log.Bytes())
	out := w.out.Bytes()
	h := out[:headerSize]
	copy(h[0:], w.fileType[:])
	copy(h[16:], w.root.GUID[:])
	copy(h[48:], guidFileFormatStore[:])
	ffv := uint32(0x2A)
	if w.fileType == guidFileTypeTOC {
		ffv = 0x1B
	}
	for i := range 4 {
		binary.LittleEndian.PutUint32(h[64+4*i:], ffv)
	}
	binary.LittleEndian.PutUint32(h[96:], 1)
	binary.LittleEndian.PutUint64(h[160:], logRef.Stp)
	binary.LittleEndian.PutUint32(h[168:], uint32(logRef.Cb))
	binary.LittleEndian.PutUint64(h[172:], rootRef.Stp)
	binary.LittleEndian.PutUint32(h[180:], uint32(rootRef.Cb))
	return out
}

// inkPath encodes an InkPath: a count, then the X values and the Y values
// as differences from the previous point, each a base-128 integer whose
// lowest bit is the sign.
func inkPath(points [][2]int64) []byte {
	var vals []int64
	for dim := range 2 {
		prev := int64(0)
		for _, p := range points {
			vals = append(vals, p[dim]-prev)
			prev = p[dim]
		}
	}
	enc := func(v uint64) []byte {
		var b []byte
		for v >= 0x80 {
			b = append(b, byte(v)|0x80)
			v >>= 7
		}
		return append(b, byte(v))
	}
	out := enc(uint64(len(vals)) << 1)
	for _, v := range vals {
		u := uint64(v) << 1
		if v < 0 {
			u = uint64(-v)<<1 | 1
		}
		out = append(out, enc(u)...)
	}
	return out
}

// layout writes the file in the revision store or the packaged layout.
func (w *wfile) layout(packaged bool) []byte {
	if packaged {
		return w.packagedBytes()
	}
	return w.bytes()
}

// sectionFile builds the object spaces of a section holding pages; the
// file's GUID is fileGUID, or a fixed one when fileGUID is zero.
func sectionFile(pages []Page, fileGUID GUID) *wfile {
	sg := func(i int) GUID {
		return GUID{0x5E, 0xC7, byte(i), byte(i >> 8), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	}
	w := &wfile{fileType: guidFileTypeSection, root: xguid{GUID: sg(0), N: 1}}
	if fileGUID != (GUID{}) {
		w.root.GUID = fileGUID // the header's guidFile is the root space's GUID
	}
	objGUID := GUID{0x0B, 0x1E, 0xC7}
	n := uint32(0)
	newObj := func(sp *wspace, jcid uint32, props ...wprop) *wobject {
		n++
		o := &wobject{id: xguid{GUID: objGUID, N: n % 200}, jcid: jcid, props: props}
		// N is 8 bits in a CompactID: vary the GUID too.
		o.id.GUID[4] = byte(n / 200)
		o.id.GUID[5] = byte(n / 200 >> 8)
		sp.objects = append(sp.objects, o)
		return o
	}
	root := &wspace{id: w.root, roots: map[uint32]xguid{}}
	w.spaces = append(w.spaces, root)
	var pageSpaces []xguid
	for i, p := range pages {
		sp := &wspace{id: xguid{GUID: sg(i + 1), N: 1}, roots: map[uint32]xguid{}}
		pageSpaces = append(pageSpaces, sp.id)
		author := newObj(sp, jcidAuthorContainer, wprop{id: propAuthor, data: str16("Test Author")})
		var els []xguid
		for _, para := range p.Paras {
			styleProps := []wprop{{id: propBold, b: para.Bold}}
			text := para.Text
			if para.Link != "" {
				styleProps = append(styleProps, wprop{id: propHyperlink, b: true})
				text = "\uFDDFHYPERLINK \"" + para.Link + "\"" + para.Text
			}
			style := newObj(sp, jcidParagraphStyleObject, styleProps...)
			pstyle := newObj(sp, jcidParagraphStyleObject, wprop{id: propParagraphStyleID, data: str16("p")})
			rt := newObj(sp, jcidRichTextOENode,
				wprop{id: propRichEditTextUnicode, data: le(utf16.Encode([]rune(text)))},
				wprop{id: propTextRunFormatting, refs: []xguid{style.id}},
				wprop{id: propParagraphStyle, refs: []xguid{pstyle.id}})
			props := []wprop{
				{id: propContentChildNodes, refs: []xguid{rt.id}},
				{id: propAuthorOriginal, refs: []xguid{author.id}},
			}
			if para.Todo != nil {
				def := newObj(sp, jcidNoteTagSharedDefinion, wprop{id: propNoteTagLabel, data: str16("To Do")}, wprop{id: propNoteTagShape, data: le(uint16(3))})
				state := []wprop{{id: propNoteTagDefinitionOid, refs: []xguid{def.id}}}
				status := uint16(0)
				if *para.Todo {
					status = 1
					state = append(state, wprop{id: propNoteTagCompleted, data: le(uint32(1))})
				}
				state = append(state, wprop{id: propActionItemStatus, data: le(status)})
				props = append(props, wprop{id: propNoteTagStates, sets: [][]wprop{state}})
			}
			if para.Number {
				list := newObj(sp, jcidNumberListNode, wprop{id: propNumberListFormat, data: str16("\x03\x00.")})
				props = append(props, wprop{id: propListNodes, refs: []xguid{list.id}})
			}
			if para.Child != "" {
				crt := newObj(sp, jcidRichTextOENode, wprop{id: propTextExtendedASCII, data: []byte(para.Child)})
				child := newObj(sp, jcidOutlineElementNode, wprop{id: propContentChildNodes, refs: []xguid{crt.id}})
				props = append(props, wprop{id: propElementChildNodes, refs: []xguid{child.id}})
			}
			els = append(els, newObj(sp, jcidOutlineElementNode, props...).id)
		}
		if p.Image != nil {
			data := newObj(sp, 0x00080039)
			data.fileData, data.ext = p.Image, ".png"
			img := newObj(sp, jcidImageNode, wprop{id: propPictureContainer, refs: []xguid{data.id}}, wprop{id: propImageAltText, data: str16(p.ImageAlt)})
			els = append(els, newObj(sp, jcidOutlineElementNode, wprop{id: propContentChildNodes, refs: []xguid{img.id}}).id)
		}
		if p.Equation {
			eq := newObj(sp, jcidMathInlineObject)
			els = append(els, newObj(sp, jcidOutlineElementNode, wprop{id: propContentChildNodes, refs: []xguid{eq.id}}).id)
		}
		if p.File != nil {
			data := newObj(sp, 0x00080036) // jcidEmbeddedFileContainer
			data.fileData, data.ext = p.File, ".pdf"
			f := newObj(sp, jcidEmbeddedFileNode, wprop{id: propEmbeddedFileContainer, refs: []xguid{data.id}}, wprop{id: propEmbeddedFileName, data: str16(p.FileName)})
			els = append(els, newObj(sp, jcidOutlineElementNode, wprop{id: propContentChildNodes, refs: []xguid{f.id}}).id)
		}
		outline := newObj(sp, jcidOutlineNode, wprop{id: propElementChildNodes, refs: els},
			wprop{id: propOffsetFromParentHoriz, data: le(float32(1))}, wprop{id: propOffsetFromParentVert, data: le(float32(2))})
		titleRT := newObj(sp, jcidRichTextOENode, wprop{id: propRichEditTextUnicode, data: le(utf16.Encode([]rune(p.Title)))})
		titleOE := newObj(sp, jcidOutlineElementNode, wprop{id: propContentChildNodes, refs: []xguid{titleRT.id}})
		titleOutline := newObj(sp, jcidOutlineNode, wprop{id: propElementChildNodes, refs: []xguid{titleOE.id}})
		title := newObj(sp, jcidTitleNode, wprop{id: propElementChildNodes, refs: []xguid{titleOutline.id}})
		pageChildren := []xguid{outline.id}
		if p.Ink != nil {
			dims := append(mustGUID(inkDimensionX).bytes32(), mustGUID(inkDimensionY).bytes32()...)
			props := newObj(sp, 0x00120048, wprop{id: propInkWidth, data: le(float32(53))}, wprop{id: propInkHeight, data: le(float32(53))},
				wprop{id: propInkColor, data: le(uint32(0x002F5597))}, wprop{id: propInkDimensions, data: dims})
			stroke := newObj(sp, jcidInkStrokeNode, wprop{id: propInkPath, data: inkPath(p.Ink)}, wprop{id: propInkStrokeProperties, refs: []xguid{props.id}})
			data := newObj(sp, jcidInkDataNode, wprop{id: propInkStrokes, refs: []xguid{stroke.id}})
			pageChildren = append(pageChildren, newObj(sp, jcidInkContainer, wprop{id: propInkData, refs: []xguid{data.id}}).id)
		}
		page := newObj(sp, jcidPageNode,
			wprop{id: propElementChildNodes, refs: pageChildren},
			wprop{id: propStructureElementChildNodes, refs: []xguid{title.id}})
		manifest := newObj(sp, jcidPageManifestNode, wprop{id: propContentChildNodes, refs: []xguid{page.id}})
		meta := newObj(sp, jcidPageMetaData,
			wprop{id: propCachedTitleString, data: str16(p.Title)},
			wprop{id: propNotebookManagementEntityGUID, data: p.GUID[:]},
			wprop{id: propPageLevel, data: le(uint32(p.Level + 1))},
			wprop{id: propTopologyCreationTimeStamp, data: ftime(p.Created)},
			wprop{id: propIsConflictPage, b: p.Conflict})
		sp.roots[roleContent] = manifest.id
		sp.roots[roleMetadata] = meta.id
		w.spaces = append(w.spaces, sp)
	}
	series := newObj(root, jcidPageSeriesNode, wprop{id: propChildGraphSpaceElementNodes, refs: pageSpaces})
	section := newObj(root, jcidSectionNode, wprop{id: propElementChildNodes, refs: []xguid{series.id}})
	root.roots[roleContent] = section.id
	return w
}

// tocFile builds the object space of a table of contents; its file GUID
// is fileGUID, or a fixed one when zero.
func tocFile(names []string, fileGUID GUID) *wfile {
	w := &wfile{fileType: guidFileTypeTOC, root: xguid{GUID: GUID{0x70, 0xC0}, N: 1}}
	if fileGUID != (GUID{}) {
		w.root.GUID = fileGUID
	}
	sp := &wspace{id: w.root, roots: map[uint32]xguid{}}
	w.spaces = []*wspace{sp}
	var children []xguid
	for i := len(names) - 1; i >= 0; i-- {
		o := &wobject{id: xguid{GUID: GUID{0x70, 0xC1}, N: uint32(i + 2)}, jcid: 0x00020001, props: []wprop{
			{id: propFolderChildFilename, data: str16(names[i])},
			{id: propNotebookElementOrderingID, data: le(uint32(i))},
		}}
		sp.objects = append(sp.objects, o)
		children = append(children, o.id)
	}
	rootObj := &wobject{id: xguid{GUID: GUID{0x70, 0xC1}, N: 1}, jcid: 0x00020001, props: []wprop{{id: propTocChildren, refs: children}}}
	sp.objects = append(sp.objects, rootObj)
	sp.roots[roleContent] = rootObj.id
	return w
}

// bytes32 is an InkDimensions entry: the GUID, then limits and units.
func (g GUID) bytes32() []byte {
	return append(g[:], make([]byte, 16)...)
}

// tocRevision is a revision manifest in the .onetoc2 form. Its objects
// must be property sets whose JCID index fits in 10 bits.
func (w *wfile) tocRevision(sp *wspace, rid xguid) []wnode {
	g := &gtable{idx: map[GUID]uint32{}}
	var decls []wnode
	for _, o := range sp.objects {
		ref := w.alloc(propSet(o.props, g))
		// ObjectDeclarationWithRefCountBody: oid, jci (10 bits) and odc,
		// then the reference flags; then cRef.
		decls = append(decls, wnode{id: fndObjectDeclarationWithRefCount, base: 1, ref: ref,
			data: le(g.compact(o.id), uint16(o.jcid&0x3FF), uint32(0), uint8(1))})
	}
	var roots []wnode
	for _, role := range []uint32{1, 2, 4} {
		if id, ok := sp.roots[role]; ok {
			roots = append(roots, wnode{id: fndRootObjectReference2, data: le(g.compact(id), role)})
		}
	}
	revs := []wnode{
		{id: fndRevisionManifestListStart, data: append(exg(sp.id), le(uint32(0))...)},
		{id: fndRevisionManifestStart4, data: append(append(exg(rid), exg(xguid{})...), le(uint64(0), uint32(1), uint16(0))...)},
		{id: fndGlobalIDTableStart, data: []byte{0}},
	}
	for i, gu := range g.order {
		revs = append(revs, wnode{id: fndGlobalIDTableEntry, data: le(uint32(i+1), gu)})
	}
	revs = append(revs, wnode{id: fndGlobalIDTableEnd})
	revs = append(revs, decls...)
	return append(revs, roots...)
}
