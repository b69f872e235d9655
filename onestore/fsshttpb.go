package onestore

import (
	"fmt"
	"math"
)

// The packaged layout ([MS-ONESTORE] 2.8, with the data elements of
// [MS-FSSHTTPB] 2.2.1.12) that OneDrive and OneNote for Windows 10 hand
// out: the same object spaces, revisions and property sets as the
// revision store, carried as FSSHTTPB data elements instead of file node
// lists. openPackaged reads the stream once, keeps the offsets of object
// data in the file, and builds the Store's object spaces from it.

// FSSHTTPB stream object types, [MS-FSSHTTPB] 2.2.1.5.
const (
	soDataElement             = 0x01
	soObjectDataBlob          = 0x02
	soObjectGroupDataExcluded = 0x03
	soObjectGroupDataBlob     = 0x05
	soStorageManifestRoot     = 0x07
	soRevisionManifestRoot    = 0x0A
	soCellManifest            = 0x0B
	soStorageManifest         = 0x0C
	soStorageIndexRevision    = 0x0D
	soStorageIndexCell        = 0x0E
	soStorageIndexManifest    = 0x11
	soDataElementPackage      = 0x15
	soObjectGroupDataObject   = 0x16
	soObjectGroupObject       = 0x18
	soRevisionManifestGroup   = 0x19
	soRevisionManifest        = 0x1A
	soObjectGroupBlobRef      = 0x1C
	soObjectGroupDeclarations = 0x1D
	soObjectGroupData         = 0x1E
	soDataElementFragment     = 0x6A
	soObjectGroupMetadata     = 0x78
	soObjectGroupMetadataBlk  = 0x79
	soOneNotePackaging        = 0x7A
)

// Partitions of an object in an object group, [MS-ONESTORE] 2.8.?.
const (
	partitionData     = 1 // the ObjectSpaceObjectPropSet
	partitionFileData = 2 // a reference to an object data BLOB
	partitionMetadata = 4 // the JCID
)

var (
	rootRoleGUID      = mustGUID("{4A3717F8-1C14-49E7-9526-81D942DE1741}") // RevisionManifestRoot roles
	headerCellRoot    = ExtendedGUID{GUID: mustGUID("{1A5A319C-C26B-41AA-B9C5-9BD8C44E07D4}"), N: 1}
	dataRootCellRoot  = ExtendedGUID{GUID: mustGUID("{84DEFAB9-AAA3-4A0D-A3A8-520C77AC7073}"), N: 2}
	errNotStreamObj   = "a stream object header"
	structurePackaged = "FSSHTTPB stream"
)

// cellID is a CellID, [MS-FSSHTTPB] 2.2.1.10: a context and an object space.
type cellID struct{ ctx, space ExtendedGUID }

// span is a byte range of the file.
type span struct{ off, n int64 }

type fsDecl struct {
	id        ExtendedGUID
	partition uint64
}

type fsData struct {
	kind  int
	refs  []ExtendedGUID
	cells []cellID
	data  span         // ObjectGroupDataObject
	blob  ExtendedGUID // ObjectGroupBlobReference
}

type fsGroup struct {
	decls []fsDecl
	data  []fsData
}

type fsRevManifest struct {
	id, base ExtendedGUID
	roots    map[uint32]ExtendedGUID
	groups   []ExtendedGUID
}

type fsPackage struct {
	cellMap     map[cellID]ExtendedGUID       // storage index: cell -> cell manifest data element
	revMap      map[ExtendedGUID]ExtendedGUID // storage index: revision ID -> revision manifest data element
	cellOrder   []cellID
	manifestRts map[ExtendedGUID]cellID // storage manifest roots
	cellRev     map[ExtendedGUID]ExtendedGUID
	revs        map[ExtendedGUID]*fsRevManifest
	groups      map[ExtendedGUID]*fsGroup
	blobs       map[ExtendedGUID]span
}

// sr reads an FSSHTTPB stream from the file's bytes.
type sr struct{ *buf }

// header reads a 16- or 32-bit stream object start header and returns
// its type and whether it was one.
func (d sr) header() (typ int, ok bool) {
	if d.remaining() < 2 {
		d.fail(errNotStreamObj)
		return 0, false
	}
	switch d.b[d.pos] & 3 {
	case 0:
		v := d.u16()
		return int(v >> 3 & 0x3F), true
	case 2:
		v := d.u32()
		if v>>17 == 0x7FFF {
			d.compact()
		}
		return int(v >> 3 & 0x3FFF), true
	}
	return 0, false
}

// expect reads a start header of type typ.
func (d sr) expect(typ int) {
	off := d.off()
	if t, ok := d.header(); (!ok || t != typ) && d.err == nil {
		d.err = formatErr(structurePackaged, off, fmt.Sprintf("stream object 0x%02X, found 0x%02X", typ, t))
	}
}

// atEnd reports whether the next byte is an 8-bit end header of typ,
// and consumes it if so.
func (d sr) atEnd(typ int) bool {
	if d.err != nil || d.remaining() < 1 {
		d.fail(fmt.Sprintf("the end of stream object 0x%02X", typ))
		return true
	}
	c := d.b[d.pos]
	if c&3 == 1 && int(c>>2) == typ {
		d.pos++
		return true
	}
	return false
}

// end16 reads a 16-bit end header of typ.
func (d sr) end16(typ int) {
	off := d.off()
	v := d.u16()
	if (v&3 != 3 || int(v>>2) != typ) && d.err == nil {
		d.err = formatErr(structurePackaged, off, fmt.Sprintf("the 16-bit end of stream object 0x%02X", typ))
	}
}

// compact reads a CompactUint64, [MS-FSSHTTPB] 2.2.1.1.
func (d sr) compact() uint64 {
	if d.remaining() < 1 {
		d.fail("a compact unsigned integer")
		return 0
	}
	c := d.b[d.pos]
	if c == 0 {
		d.pos++
		return 0
	}
	for width := 1; width <= 7; width++ {
		if c&(1<<(width-1)) != 0 {
			p := d.bytes(width)
			if p == nil {
				return 0
			}
			var v uint64
			for i := width - 1; i >= 0; i-- {
				v = v<<8 | uint64(p[i])
			}
			return v >> width
		}
	}
	d.pos++
	return d.u64()
}

// exGUID reads a compact ExtendedGUID, [MS-FSSHTTPB] 2.2.1.7.
func (d sr) exGUID() ExtendedGUID {
	off := d.off()
	c := d.u8()
	switch {
	case c == 0:
		return ExtendedGUID{}
	case c&7 == 4:
		return ExtendedGUID{N: uint32(c >> 3), GUID: d.guid()}
	case c&0x3F == 0x20:
		n := uint32(c>>6) | uint32(d.u8())<<2
		return ExtendedGUID{N: n, GUID: d.guid()}
	case c&0x7F == 0x40:
		n := uint32(c>>7) | uint32(d.u16())<<1
		return ExtendedGUID{N: n, GUID: d.guid()}
	case c == 0x80:
		n := d.u32()
		return ExtendedGUID{N: n, GUID: d.guid()}
	}
	if d.err == nil {
		d.err = formatErr("ExtendedGUID", off, fmt.Sprintf("a compact ExtendedGUID, found first byte 0x%02X", c))
	}
	return ExtendedGUID{}
}

func (d sr) count() int {
	n := d.compact()
	if n > uint64(d.remaining()) {
		d.fail(fmt.Sprintf("an array of %d items inside the stream", n))
		return 0
	}
	return int(n)
}

func (d sr) exGUIDs() []ExtendedGUID {
	n := d.count()
	out := make([]ExtendedGUID, 0, min(n, 64))
	for range n {
		out = append(out, d.exGUID())
	}
	return out
}

func (d sr) cell() cellID { return cellID{d.exGUID(), d.exGUID()} }

func (d sr) cells() []cellID {
	n := d.count()
	out := make([]cellID, 0, min(n, 64))
	for range n {
		out = append(out, d.cell())
	}
	return out
}

// serial reads a SerialNumber, [MS-FSSHTTPB] 2.2.1.9.
func (d sr) serial() {
	if d.u8() != 0 {
		d.guid()
		d.u64()
	}
}

// binary reads a BinaryItem's range, [MS-FSSHTTPB] 2.2.1.3.
func (d sr) binary() span {
	n := d.compact()
	if n > uint64(d.remaining()) {
		d.fail(fmt.Sprintf("%d bytes of binary data inside the stream", n))
		return span{}
	}
	s := span{off: d.off(), n: int64(n)}
	d.pos += int(n)
	return s
}

// readPackaged reads the packaged layout after the 64 bytes of GUIDs.
func (s *Store) readPackaged() error {
	p, err := s.f.read(0, s.f.size, structurePackaged)
	if err != nil {
		return err
	}
	d := sr{newBuf(p, 0, structurePackaged)}
	d.pos = 64
	if d.u32() != 0 && d.err == nil {
		return formatErr(structurePackaged, 64, "a reserved zero")
	}
	d.expect(soOneNotePackaging)
	d.exGUID() // the storage index's data element ID
	d.guid()   // guidCellSchemaId
	d.expect(soDataElementPackage)
	d.u8() // reserved
	pkg := &fsPackage{cellMap: map[cellID]ExtendedGUID{}, revMap: map[ExtendedGUID]ExtendedGUID{}, manifestRts: map[ExtendedGUID]cellID{},
		cellRev: map[ExtendedGUID]ExtendedGUID{}, revs: map[ExtendedGUID]*fsRevManifest{}, groups: map[ExtendedGUID]*fsGroup{}, blobs: map[ExtendedGUID]span{}}
	for d.err == nil && !d.atEnd(soDataElementPackage) {
		pkg.dataElement(d)
	}
	d.end16(soOneNotePackaging)
	if d.err != nil {
		return d.err
	}
	return s.buildPackaged(pkg)
}

// dataElement reads one DataElement, [MS-FSSHTTPB] 2.2.1.12.
func (pkg *fsPackage) dataElement(d sr) {
	d.expect(soDataElement)
	id := d.exGUID()
	d.serial()
	typ := d.compact()
	off := d.off()
	switch typ {
	case 1: // storage index, 2.2.1.12.2
		for !d.atEnd(soDataElement) && d.err == nil {
			switch t, _ := d.header(); t {
			case soStorageIndexManifest:
				d.exGUID()
				d.serial()
			case soStorageIndexCell:
				c := d.cell()
				m := d.exGUID()
				d.serial()
				if _, dup := pkg.cellMap[c]; !dup {
					pkg.cellOrder = append(pkg.cellOrder, c)
				}
				pkg.cellMap[c] = m
			case soStorageIndexRevision:
				rid, m := d.exGUID(), d.exGUID()
				d.serial()
				pkg.revMap[rid] = m
			default:
				d.fail(fmt.Sprintf("a storage index mapping, found stream object 0x%02X", t))
			}
		}
	case 2: // storage manifest, 2.2.1.12.3
		d.expect(soStorageManifest)
		d.guid()
		for !d.atEnd(soDataElement) && d.err == nil {
			d.expect(soStorageManifestRoot)
			root := d.exGUID()
			pkg.manifestRts[root] = d.cell()
		}
	case 3: // cell manifest, 2.2.1.12.4
		d.expect(soCellManifest)
		pkg.cellRev[id] = d.exGUID()
		d.atEnd(soDataElement)
	case 4: // revision manifest, 2.2.1.12.5
		d.expect(soRevisionManifest)
		rm := &fsRevManifest{id: d.exGUID(), base: d.exGUID(), roots: map[uint32]ExtendedGUID{}}
		for !d.atEnd(soDataElement) && d.err == nil {
			switch t, _ := d.header(); t {
			case soRevisionManifestRoot:
				root, obj := d.exGUID(), d.exGUID()
				if root.GUID == rootRoleGUID {
					rm.roots[root.N] = obj
				}
			case soRevisionManifestGroup:
				rm.groups = append(rm.groups, d.exGUID())
			default:
				d.fail(fmt.Sprintf("a revision manifest root or group reference, found stream object 0x%02X", t))
			}
		}
		pkg.revs[id] = rm
	case 5: // object group, 2.2.1.12.6
		pkg.groups[id] = objectGroup(d)
	case 6: // data element fragment, 2.2.1.12.7: not used by OneNote's files
		d.expect(soDataElementFragment)
		d.exGUID()
		size := d.compact()
		d.compact()
		d.compact()
		d.bytes(int(min(size, math.MaxInt32)))
		d.atEnd(soDataElement)
	case 0x0A: // object data BLOB, 2.2.1.12.8
		d.expect(soObjectDataBlob)
		pkg.blobs[id] = d.binary()
		d.atEnd(soDataElement)
	default:
		if d.err == nil {
			d.err = formatErr("DataElement", off, fmt.Sprintf("a known data element type, found %d", typ))
		}
	}
}

// objectGroup reads an object group data element: declarations, optional
// metadata, then the data of each declaration in order.
func objectGroup(d sr) *fsGroup {
	g := &fsGroup{}
	d.expect(soObjectGroupDeclarations)
	for !d.atEnd(soObjectGroupDeclarations) && d.err == nil {
		switch t, _ := d.header(); t {
		case soObjectGroupObject:
			id := d.exGUID()
			part := d.compact()
			d.compact() // size
			d.compact() // object references
			d.compact() // cell references
			g.decls = append(g.decls, fsDecl{id, part})
		case soObjectGroupDataBlob:
			id := d.exGUID()
			d.exGUID() // blob
			part := d.compact()
			d.compact()
			d.compact()
			g.decls = append(g.decls, fsDecl{id, part})
		default:
			d.fail(fmt.Sprintf("an object group declaration, found stream object 0x%02X", t))
		}
	}
	t, _ := d.header()
	if t == soObjectGroupMetadataBlk {
		for !d.atEnd(soObjectGroupMetadataBlk) && d.err == nil {
			d.expect(soObjectGroupMetadata)
			d.compact()
		}
		t, _ = d.header()
	}
	if t != soObjectGroupData {
		d.fail("object group data")
		return g
	}
	for !d.atEnd(soObjectGroupData) && d.err == nil {
		t, _ := d.header()
		item := fsData{kind: t}
		switch t {
		case soObjectGroupDataExcluded:
			item.refs, item.cells = d.exGUIDs(), d.cells()
			d.compact()
		case soObjectGroupDataObject:
			item.refs, item.cells = d.exGUIDs(), d.cells()
			item.data = d.binary()
		case soObjectGroupBlobRef:
			item.refs, item.cells = d.exGUIDs(), d.cells()
			item.blob = d.exGUID()
		default:
			d.fail(fmt.Sprintf("object group data, found stream object 0x%02X", t))
		}
		g.data = append(g.data, item)
	}
	d.atEnd(soDataElement)
	return g
}

// revisionFor resolves a cell's current revision manifest.
func (pkg *fsPackage) revisionManifest(rid ExtendedGUID) *fsRevManifest {
	if m, ok := pkg.revMap[rid]; ok {
		if r := pkg.revs[m]; r != nil {
			return r
		}
	}
	return pkg.revs[rid]
}

// buildPackaged turns the data elements into the Store's object spaces:
// one object space per cell, holding the objects of its revision and the
// revisions that revision is based on.
func (s *Store) buildPackaged(pkg *fsPackage) error {
	dataRoot, ok := pkg.manifestRts[dataRootCellRoot]
	if !ok {
		return formatErr("StorageManifest", 0, "the data root cell {84DEFAB9-AAA3-4A0D-A3A8-520C77AC7073}")
	}
	s.root = dataRoot.space
	// A space may have a cell in several contexts; the data root's
	// context is the content, the others hold its version history.
	cells := make([]cellID, 0, len(pkg.cellOrder))
	for _, c := range pkg.cellOrder {
		if c.ctx == dataRoot.ctx || c.ctx.IsZero() {
			cells = append(cells, c)
		}
	}
	for _, c := range pkg.cellOrder {
		if c.ctx != dataRoot.ctx && !c.ctx.IsZero() {
			cells = append(cells, c)
		}
	}
	for _, c := range cells {
		if c == pkg.manifestRts[headerCellRoot] {
			continue
		}
		m := pkg.cellMap[c]
		rid, ok := pkg.cellRev[m]
		if !ok || rid.IsZero() {
			continue
		}
		if _, dup := s.spaces[c.space]; dup {
			continue // another context of a space already read
		}
		sp := &objectSpace{id: c.space, revs: map[ExtendedGUID]*revision{}, roles: map[roleKey]ExtendedGUID{}}
		rev := &revision{id: rid, objects: map[ExtendedGUID]*objectEntry{}, roots: map[uint32]ExtendedGUID{}}
		seen := 0
		for rm := pkg.revisionManifest(rid); rm != nil && seen <= len(pkg.revs); rm = pkg.revisionManifest(rm.base) {
			seen++
			for role, obj := range rm.roots {
				if _, ok := rev.roots[role]; !ok {
					rev.roots[role] = obj
				}
			}
			for _, gid := range rm.groups {
				g := pkg.groups[gid]
				if g == nil {
					return formatErr("RevisionManifestGroupReference", 0, "the object group "+gid.String())
				}
				if err := s.packagedGroup(pkg, g, c.space, rev); err != nil {
					return err
				}
			}
			if rm.base.IsZero() {
				break
			}
		}
		sp.revs[rid] = rev
		sp.roles[roleKey{role: roleContent}] = rid
		// A root of role 3 is the encryption key of a password-protected
		// section ([MS-ONESTORE] 2.1.8).
		if _, ok := rev.roots[roleEncryptionKey]; ok {
			sp.encrypted = true
		}
		if _, dup := s.spaces[c.space]; !dup {
			s.order = append(s.order, c.space)
		}
		s.spaces[c.space] = sp
	}
	if _, ok := s.spaces[s.root]; !ok {
		return formatErr("StorageIndexCellMapping", 0, "a cell for the data root object space "+s.root.String())
	}
	return nil
}

// packagedGroup adds an object group's objects to rev: the JCID from the
// metadata partition, the property set's range and references from the
// data partition, a BLOB from the file data partition.
func (s *Store) packagedGroup(pkg *fsPackage, g *fsGroup, space ExtendedGUID, rev *revision) error {
	if len(g.decls) != len(g.data) {
		return formatErr("ObjectGroupData", 0, fmt.Sprintf("%d object data items for %d declarations", len(g.data), len(g.decls)))
	}
	byID := map[ExtendedGUID]*objectEntry{}
	for i, decl := range g.decls {
		if _, older := rev.objects[decl.id]; older {
			continue // a newer revision declared it already
		}
		e := byID[decl.id]
		if e == nil {
			e = &objectEntry{id: decl.id, ref: chunkRef{Stp: 0xFFFFFFFFFFFFFFFF}}
			byID[decl.id] = e
		}
		item := g.data[i]
		switch decl.partition {
		case partitionMetadata:
			if item.kind == soObjectGroupDataObject && item.data.n >= 4 {
				p, err := s.f.read(item.data.off, 4, "ObjectGroupDataObject")
				if err != nil {
					return err
				}
				e.jcid = uint32(p[0]) | uint32(p[1])<<8 | uint32(p[2])<<16 | uint32(p[3])<<24
			}
		case partitionData:
			if item.kind == soObjectGroupDataObject {
				e.ref = chunkRef{Stp: uint64(item.data.off), Cb: uint64(item.data.n)}
				e.refs = item.refs
				for _, c := range item.cells {
					if c.space == space {
						e.ctxRefs = append(e.ctxRefs, c.ctx)
					} else {
						e.spaceRefs = append(e.spaceRefs, c.space)
					}
				}
				e.packaged = true
			}
		case partitionFileData:
			if item.kind == soObjectGroupBlobRef {
				b, ok := pkg.blobs[item.blob]
				if !ok {
					return formatErr("ObjectGroupBlobReference", 0, "the object data BLOB "+item.blob.String())
				}
				e.blob = &b
				e.fileRef = "<blob>"
			}
		}
	}
	for id, e := range byID {
		if e.ref.isNil() && e.blob == nil && e.jcid == 0 {
			continue
		}
		if !e.packaged {
			e.ref = chunkRef{Stp: 0xFFFFFFFFFFFFFFFF}
		}
		rev.objects[id] = e
	}
	return nil
}
