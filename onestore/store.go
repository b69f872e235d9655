package onestore

import (
	"fmt"
	"io"
	"strings"
)

// Store is an opened revision store file ([MS-ONESTORE]): its object
// spaces, their revisions and the objects of each revision. The file's
// node lists are read when it is opened; objects' property sets are read
// from the file when they are asked for. It does not change after
// opening, so concurrent readers may share it.
type Store struct {
	f          *file
	header     *Header
	listCounts map[uint32]uint32 // FileNodeListID -> committed node count
	root       ExtendedGUID      // gosidRoot
	spaces     map[ExtendedGUID]*objectSpace
	order      []ExtendedGUID    // object spaces in file order
	fileData   map[GUID]chunkRef // FileDataStoreObjectReferenceFND by guidReference
}

// objectSpace is one object space ([MS-ONESTORE] 2.1.4): its revisions
// and which revision holds each role in each context.
type objectSpace struct {
	id        ExtendedGUID
	revs      map[ExtendedGUID]*revision
	roles     map[roleKey]ExtendedGUID
	encrypted bool // ObjectDataEncryptionKeyV2FNDX: a password-protected section
}

type roleKey struct {
	ctx  ExtendedGUID
	role uint32
}

// Revision roles, [MS-ONESTORE] 2.1.8 and [MS-ONE] 2.1.7.
const (
	roleContent       = 1 // the default content
	roleMetadata      = 2 // the page's metadata
	roleEncryptionKey = 3 // the key of a password-protected section
	roleVersions      = 4 // the revision metadata
)

// revision is one revision ([MS-ONESTORE] 2.1.8): the objects it declares
// and the revision it depends on for the rest.
type revision struct {
	id, dep  ExtendedGUID
	depRev   *revision
	objects  map[ExtendedGUID]*objectEntry
	roots    map[uint32]ExtendedGUID
	globalID map[uint32]GUID // the revision's global ID table (.onetoc2 layout)
}

// objectEntry is one object declaration: where its property set is, the
// global ID table its compact IDs resolve through, and for a file data
// object the reference to its bytes.
type objectEntry struct {
	id       ExtendedGUID
	jcid     uint32
	ref      chunkRef
	globalID map[uint32]GUID
	fileRef  string // FileDataReference of ObjectDeclarationFileData3RefCountFND
	ext      string // Extension of ObjectDeclarationFileData3RefCountFND

	// The packaged layout names an object's references by position, not
	// through a global ID table: the i-th compact ID of a stream is the
	// i-th reference of the object's data ([MS-ONESTORE] 2.8.?).
	packaged  bool
	refs      []ExtendedGUID // objects
	spaceRefs []ExtendedGUID // object spaces
	ctxRefs   []ExtendedGUID // contexts
	blob      *span          // the object data BLOB of a file data object
}

// JCID flags, [MS-ONESTORE] 2.6.14.
const (
	jcidIsBinary      = 1 << 16
	jcidIsPropertySet = 1 << 17
	jcidIsFileData    = 1 << 19
)

// openStore reads the header, the transaction log and every file node
// list of a revision store file.
func openStore(r io.ReaderAt, size int64) (*Store, error) {
	f := &file{r: r, size: size}
	h, err := parseHeader(f)
	if err != nil {
		return nil, err
	}
	s := &Store{f: f, header: h, spaces: map[ExtendedGUID]*objectSpace{}, fileData: map[GUID]chunkRef{}}
	if h.FileFormat == guidFileFormatPack {
		if err := s.readPackaged(); err != nil {
			return nil, err
		}
		return s, nil
	}
	if err := s.readTransactionLog(h); err != nil {
		return nil, err
	}
	if h.FileNodeRoot.isNil() {
		return nil, formatErr("Header", 172, "fcrFileNodeListRoot to point at the root file node list")
	}
	nodes, err := s.readFileNodeList(h.FileNodeRoot)
	if err != nil {
		return nil, err
	}
	for _, n := range nodes {
		switch n.id {
		case fndObjectSpaceManifestRoot:
			s.root = n.data.exGUID()
		case fndObjectSpaceManifestListReference:
			gosid := n.data.exGUID()
			if err := s.readObjectSpace(n, gosid); err != nil {
				return nil, err
			}
		case fndFileDataStoreListReference:
			if err := s.readFileDataStore(n); err != nil {
				return nil, err
			}
		}
		if n.data.err != nil {
			return nil, n.data.err
		}
	}
	if _, ok := s.spaces[s.root]; !ok {
		return nil, formatErr("ObjectSpaceManifestRootFND", 0, "gosidRoot naming one of the file's object spaces")
	}
	return s, nil
}

// readFileDataStore reads the FileDataStoreList: each
// FileDataStoreObjectReferenceFND ([MS-ONESTORE] 2.5.32) by its GUID.
func (s *Store) readFileDataStore(n fileNode) error {
	nodes, err := s.readFileNodeList(n.ref)
	if err != nil {
		return err
	}
	for _, m := range nodes {
		if m.id == fndFileDataStoreObjectReference {
			g := m.data.guid()
			if m.data.err != nil {
				return m.data.err
			}
			s.fileData[g] = m.ref
		}
	}
	return nil
}

// readObjectSpace reads an ObjectSpaceManifestList ([MS-ONESTORE] 2.4.?)
// and the last revision manifest list it references.
func (s *Store) readObjectSpace(n fileNode, gosid ExtendedGUID) error {
	nodes, err := s.readFileNodeList(n.ref)
	if err != nil {
		return err
	}
	var last *fileNode
	for i := range nodes {
		if nodes[i].id == fndRevisionManifestListReference {
			last = &nodes[i]
		}
	}
	sp := &objectSpace{id: gosid, revs: map[ExtendedGUID]*revision{}, roles: map[roleKey]ExtendedGUID{}}
	if _, dup := s.spaces[gosid]; !dup {
		s.order = append(s.order, gosid)
	}
	s.spaces[gosid] = sp
	if last == nil {
		return nil // an object space with no revision yet
	}
	revNodes, err := s.readFileNodeList(last.ref)
	if err != nil {
		return err
	}
	return s.readRevisions(sp, revNodes)
}

// readRevisions reads a RevisionManifestList ([MS-ONESTORE] 2.1.9): the
// revision manifests in order and the role declarations.
func (s *Store) readRevisions(sp *objectSpace, nodes []fileNode) error {
	var cur *revision
	var table map[uint32]GUID
	for _, n := range nodes {
		d := n.data
		switch n.id {
		case fndRevisionManifestStart4, fndRevisionManifestStart6, fndRevisionManifestStart7:
			rid, dep := d.exGUID(), d.exGUID()
			if n.id == fndRevisionManifestStart4 {
				d.u64() // timeCreation
			}
			role := d.u32()
			d.u16() // odcsDefault
			var ctx ExtendedGUID
			if n.id == fndRevisionManifestStart7 {
				ctx = d.exGUID()
			}
			if d.err != nil {
				return d.err
			}
			cur = &revision{id: rid, dep: dep, objects: map[ExtendedGUID]*objectEntry{}, roots: map[uint32]ExtendedGUID{}}
			if !dep.IsZero() {
				cur.depRev = sp.revs[dep]
				if cur.depRev == nil {
					return formatErr("RevisionManifestStartFND", n.off, "ridDependent "+dep.String()+" to name an earlier revision (missing dependent revision)")
				}
			}
			sp.revs[rid] = cur
			sp.roles[roleKey{ctx, role}] = rid
			table = nil
		case fndRevisionManifestEnd:
			cur = nil
		case fndRevisionRoleDeclaration, fndRevisionRoleAndContextDeclaration:
			rid := d.exGUID()
			role := d.u32()
			var ctx ExtendedGUID
			if n.id == fndRevisionRoleAndContextDeclaration {
				ctx = d.exGUID()
			}
			if d.err != nil {
				return d.err
			}
			if _, ok := sp.revs[rid]; !ok {
				return formatErr("RevisionRoleDeclarationFND", n.off, "rid "+rid.String()+" to name a revision of the object space")
			}
			sp.roles[roleKey{ctx, role}] = rid
		case fndObjectDataEncryptionKeyV2:
			sp.encrypted = true
		default:
			if cur == nil {
				continue
			}
			var err error
			table, err = s.revisionNode(cur, n, table)
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// revisionNode reads one node inside a revision manifest: object group
// references, global ID tables, object declarations and root objects.
func (s *Store) revisionNode(cur *revision, n fileNode, table map[uint32]GUID) (map[uint32]GUID, error) {
	d := n.data
	switch n.id {
	case fndObjectGroupListReference:
		if err := s.readObjectGroup(cur, n.ref); err != nil {
			return table, err
		}
	case fndGlobalIDTableStart, fndGlobalIDTableStart2:
		table = map[uint32]GUID{}
		cur.globalID = table
	case fndGlobalIDTableEntry, fndGlobalIDTableEntry2, fndGlobalIDTableEntry3:
		if table == nil {
			return table, formatErr("GlobalIdTableEntryFNDX", n.off, "a GlobalIdTableStartFNDX before it")
		}
		var depTable map[uint32]GUID
		if cur.depRev != nil {
			depTable = cur.depRev.globalID
		}
		if err := globalIDEntry(n, table, depTable); err != nil {
			return table, err
		}
	case fndRootObjectReference2:
		cid, role := d.u32(), d.u32()
		id, err := resolveCompactID(cid, table, n.off)
		if err != nil {
			return table, err
		}
		cur.roots[role] = id
	case fndRootObjectReference3:
		id, role := d.exGUID(), d.u32()
		cur.roots[role] = id
	default:
		e, err := s.declaration(n, table, cur)
		if err != nil || e == nil {
			return table, err
		}
		cur.objects[e.id] = e
	}
	return table, d.err
}

// globalIDEntry applies a GlobalIdTableEntryFNDX, GlobalIdTableEntry2FNDX
// or GlobalIdTableEntry3FNDX ([MS-ONESTORE] 2.5.10 to 2.5.12).
func globalIDEntry(n fileNode, table, dep map[uint32]GUID) error {
	d := n.data
	switch n.id {
	case fndGlobalIDTableEntry:
		i := d.u32()
		table[i] = d.guid()
	case fndGlobalIDTableEntry2:
		from, to := d.u32(), d.u32()
		g, ok := dep[from]
		if !ok && d.err == nil {
			return formatErr("GlobalIdTableEntry2FNDX", n.off, fmt.Sprintf("iIndexMapFrom %d in the dependent revision's table", from))
		}
		table[to] = g
	case fndGlobalIDTableEntry3:
		from, count, to := d.u32(), d.u32(), d.u32()
		if d.err == nil && uint64(count) > uint64(len(dep)) {
			return formatErr("GlobalIdTableEntry3FNDX", n.off, fmt.Sprintf("cEntriesToCopy at most %d, found %d", len(dep), count))
		}
		for k := range count {
			g, ok := dep[from+k]
			if !ok {
				return formatErr("GlobalIdTableEntry3FNDX", n.off, fmt.Sprintf("index %d in the dependent revision's table", from+k))
			}
			table[to+k] = g
		}
	}
	return d.err
}

// resolveCompactID turns a CompactID ([MS-ONESTORE] 2.2.2) into the
// ExtendedGUID it names through a global ID table.
func resolveCompactID(cid uint32, table map[uint32]GUID, off int64) (ExtendedGUID, error) {
	if cid == 0 {
		return ExtendedGUID{}, nil
	}
	g, ok := table[cid>>8]
	if !ok {
		return ExtendedGUID{}, formatErr("CompactID", off, fmt.Sprintf("guidIndex %d in the global ID table", cid>>8))
	}
	return ExtendedGUID{GUID: g, N: cid & 0xFF}, nil
}

// readObjectGroup reads an ObjectGroupList ([MS-ONESTORE] 2.1.13): its
// global ID table and the object declarations that use it.
func (s *Store) readObjectGroup(cur *revision, ref chunkRef) error {
	nodes, err := s.readFileNodeList(ref)
	if err != nil {
		return err
	}
	var table map[uint32]GUID
	for _, n := range nodes {
		switch n.id {
		case fndGlobalIDTableStart2, fndGlobalIDTableStart:
			table = map[uint32]GUID{}
		case fndGlobalIDTableEntry:
			if table == nil {
				return formatErr("GlobalIdTableEntryFNDX", n.off, "a GlobalIdTableStart2FND before it")
			}
			if err := globalIDEntry(n, table, nil); err != nil {
				return err
			}
		default:
			e, err := s.declaration(n, table, cur)
			if err != nil {
				return err
			}
			if e != nil {
				cur.objects[e.id] = e
			}
		}
	}
	return nil
}

// declaration reads an object declaration or object revision node; it
// returns nil for any other node.
func (s *Store) declaration(n fileNode, table map[uint32]GUID, cur *revision) (*objectEntry, error) {
	d := n.data
	e := &objectEntry{ref: n.ref, globalID: table}
	var cid uint32
	switch n.id {
	case fndObjectDeclarationWithRefCount, fndObjectDeclarationWithRefCount2:
		// ObjectDeclarationWithRefCountBody, 2.5.25: oid, jci (10 bits),
		// odc (4 bits), flags; the object is a property set.
		cid = d.u32()
		bits := d.u16()
		d.u32()
		e.jcid = jcidIsPropertySet | uint32(bits&0x3FF)
	case fndObjectDeclaration2RefCount, fndObjectDeclaration2LargeRefCount,
		fndReadOnlyObjectDeclaration2Ref, fndReadOnlyObjectDeclaration2Large:
		// ObjectDeclaration2Body, 2.5.26: oid, jcid, flags.
		cid = d.u32()
		e.jcid = d.u32()
		d.u8()
	case fndObjectRevisionWithRefCount, fndObjectRevisionWithRefCount2:
		// ObjectRevisionWithRefCountFNDX, 2.5.15: new data for an object
		// declared before; it keeps its JCID.
		cid = d.u32()
		id, err := resolveCompactID(cid, table, n.off)
		if err != nil {
			return nil, err
		}
		prev := cur.lookup(id)
		if prev == nil {
			return nil, formatErr("ObjectRevisionWithRefCountFNDX", n.off, "an object declared before, found "+id.String())
		}
		e.jcid = prev.jcid
	case fndObjectDeclarationFileData3Ref, fndObjectDeclarationFileData3Large:
		// ObjectDeclarationFileData3RefCountFND, 2.5.27.
		cid = d.u32()
		e.jcid = d.u32()
		if n.id == fndObjectDeclarationFileData3Ref {
			d.u8()
		} else {
			d.u32()
		}
		e.fileRef = storageString(d)
		e.ext = storageString(d)
	default:
		return nil, nil
	}
	if d.err != nil {
		return nil, d.err
	}
	id, err := resolveCompactID(cid, table, n.off)
	if err != nil {
		return nil, err
	}
	e.id = id
	return e, nil
}

// storageString reads a StringInStorageBuffer, [MS-ONESTORE] 2.2.3.
func storageString(d *buf) string {
	n := d.u32()
	if uint64(n)*2 > uint64(d.remaining()) {
		d.fail(fmt.Sprintf("a StringInStorageBuffer of %d characters inside the node", n))
		return ""
	}
	return utf16String(d.bytes(int(n) * 2))
}

// lookup finds the object with id in r or the revisions it depends on.
func (r *revision) lookup(id ExtendedGUID) *objectEntry {
	for i, cur := 0, r; cur != nil && i < 1<<16; i, cur = i+1, cur.depRev {
		if e, ok := cur.objects[id]; ok {
			return e
		}
	}
	return nil
}

// rootObject finds the root object of role in r or its dependencies.
func (r *revision) rootObject(role uint32) (ExtendedGUID, bool) {
	for i, cur := 0, r; cur != nil && i < 1<<16; i, cur = i+1, cur.depRev {
		if id, ok := cur.roots[role]; ok {
			return id, true
		}
	}
	return ExtendedGUID{}, false
}

// current returns the revision that holds role in the default context.
func (sp *objectSpace) current(role uint32) *revision {
	rid, ok := sp.roles[roleKey{role: role}]
	if !ok {
		return nil
	}
	return sp.revs[rid]
}

// fileDataBytes returns the range of a file data object's bytes: a
// FileDataStoreObject ([MS-ONESTORE] 2.6.13) inside the file, named by
// "<ifndf>{GUID}". A reference to a file outside ("<file>name") is
// reported by name.
func (s *Store) fileDataRange(e *objectEntry) (off, n int64, err error) {
	if e.blob != nil {
		return e.blob.off, e.blob.n, nil
	}
	ref := e.fileRef
	if !strings.HasPrefix(ref, "<ifndf>") {
		return 0, 0, &UnsupportedError{Format: "a file data object stored outside the section (" + ref + ")", Advice: "export the notebook as a OneNote package so that its files travel with it"}
	}
	g, err := ParseGUID(strings.TrimPrefix(ref, "<ifndf>"))
	if err != nil {
		return 0, 0, formatErr("ObjectDeclarationFileData3RefCountFND", 0, "a FileDataReference <ifndf>{GUID}, found "+ref)
	}
	c, ok := s.fileData[g]
	if !ok {
		return 0, 0, formatErr("FileDataStoreObjectReferenceFND", 0, "a file data store object "+g.String())
	}
	if c.Cb < 36 {
		return 0, 0, formatErr("FileDataStoreObject", int64(c.Stp), "at least 36 bytes")
	}
	p, err := s.f.read(int64(c.Stp), 36, "FileDataStoreObject")
	if err != nil {
		return 0, 0, err
	}
	d := newBuf(p, int64(c.Stp), "FileDataStoreObject")
	if d.guid() != guidFileDataHeader {
		return 0, 0, formatErr("FileDataStoreObject", int64(c.Stp), "guidHeader {BDE316E7-2665-4511-A4C4-8D4D0B7A9EAC}")
	}
	length := d.u64()
	if length > c.Cb-36 {
		return 0, 0, formatErr("FileDataStoreObject", int64(c.Stp)+16, fmt.Sprintf("cbLength at most %d, found %d", c.Cb-36, length))
	}
	return int64(c.Stp) + 36, int64(length), nil
}

var guidFileDataHeader = mustGUID("{BDE316E7-2665-4511-A4C4-8D4D0B7A9EAC}")
