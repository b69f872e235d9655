package onestore

import "fmt"

// FileNode IDs, [MS-ONESTORE] 2.4.3.
const (
	fndObjectSpaceManifestRoot           = 0x004
	fndObjectSpaceManifestListReference  = 0x008
	fndObjectSpaceManifestListStart      = 0x00C
	fndRevisionManifestListReference     = 0x010
	fndRevisionManifestListStart         = 0x014
	fndRevisionManifestStart4            = 0x01B
	fndRevisionManifestEnd               = 0x01C
	fndRevisionManifestStart6            = 0x01E
	fndRevisionManifestStart7            = 0x01F
	fndGlobalIDTableStart                = 0x021
	fndGlobalIDTableStart2               = 0x022
	fndGlobalIDTableEntry                = 0x024
	fndGlobalIDTableEntry2               = 0x025
	fndGlobalIDTableEntry3               = 0x026
	fndGlobalIDTableEnd                  = 0x028
	fndObjectDeclarationWithRefCount     = 0x02D
	fndObjectDeclarationWithRefCount2    = 0x02E
	fndObjectRevisionWithRefCount        = 0x041
	fndObjectRevisionWithRefCount2       = 0x042
	fndRootObjectReference2              = 0x059
	fndRootObjectReference3              = 0x05A
	fndRevisionRoleDeclaration           = 0x05C
	fndRevisionRoleAndContextDeclaration = 0x05D
	fndObjectDeclarationFileData3Ref     = 0x072
	fndObjectDeclarationFileData3Large   = 0x073
	fndObjectDataEncryptionKeyV2         = 0x07C
	fndObjectInfoDependencyOverrides     = 0x084
	fndDataSignatureGroupDefinition      = 0x08C
	fndFileDataStoreListReference        = 0x090
	fndFileDataStoreObjectReference      = 0x094
	fndObjectDeclaration2RefCount        = 0x0A4
	fndObjectDeclaration2LargeRefCount   = 0x0A5
	fndObjectGroupListReference          = 0x0B0
	fndObjectGroupStart                  = 0x0B4
	fndObjectGroupEnd                    = 0x0B8
	fndHashedChunkDescriptor2            = 0x0C2
	fndReadOnlyObjectDeclaration2Ref     = 0x0C4
	fndReadOnlyObjectDeclaration2Large   = 0x0C5
	fndChunkTerminator                   = 0x0FF
)

const (
	fileNodeListHeaderMagic = 0xA4567AB1F5F7F4C4 // FileNodeListHeader.uintMagic, 2.4.2
	fileNodeListFooterMagic = 0x8BC215C38233BA4B // FileNodeListFragment.footer, 2.4.1
)

// fileNode is one FileNode, [MS-ONESTORE] 2.4.3: its ID, the chunk it
// references (BaseType 1 or 2) and its own data after the reference.
type fileNode struct {
	id   uint16
	off  int64    // file offset of the node
	ref  chunkRef // ref, when BaseType is 1 (data) or 2 (a file node list)
	data *buf     // the node's fields after the reference
}

// readFileNodeList reads the FileNodeList that starts at ref: its
// FileNodeListFragments ([MS-ONESTORE] 2.4.1) in sequence, each checked
// for its magic numbers, list ID and sequence number. count is the number
// of nodes the transaction log committed for the list, or -1 to read up to
// the ChunkTerminatorFND.
func (s *Store) readFileNodeList(ref chunkRef) ([]fileNode, error) {
	var nodes []fileNode
	listID := uint32(0)
	count := -1
	for seq := uint32(0); ; seq++ {
		if ref.Cb < 36 || ref.Stp > uint64(s.f.size) || ref.Cb > uint64(s.f.size)-ref.Stp {
			return nil, formatErr("FileNodeListFragment", int64(min(ref.Stp, 1<<62)), fmt.Sprintf("a fragment of at least 36 bytes inside the file, found %d bytes", ref.Cb))
		}
		if seq > uint32(s.f.size/36) {
			return nil, formatErr("FileNodeListFragment", int64(ref.Stp), "a list that ends (fragments loop)")
		}
		start := int64(ref.Stp)
		p, err := s.f.read(start, int64(ref.Cb), "FileNodeListFragment")
		if err != nil {
			return nil, err
		}
		d := newBuf(p, start, "FileNodeListHeader")
		if d.u64() != fileNodeListHeaderMagic {
			return nil, formatErr("FileNodeListHeader", start, "uintMagic 0xA4567AB1F5F7F4C4")
		}
		id := d.u32()
		if d.u32() != seq {
			return nil, formatErr("FileNodeListHeader", start+12, fmt.Sprintf("nFragmentSequence %d", seq))
		}
		if seq == 0 {
			listID = id
			if c, ok := s.listCounts[id]; ok {
				count = int(c)
			}
		} else if id != listID {
			return nil, formatErr("FileNodeListHeader", start+8, fmt.Sprintf("FileNodeListID %d of the list's first fragment, found %d", listID, id))
		}
		end := len(p) - 20 // nextFragment (12 bytes) and footer (8 bytes)
		d.structure = "FileNode"
		for d.pos+4 <= end && (count < 0 || len(nodes) < count) {
			nodeOff := d.off()
			h := d.u32()
			fid := uint16(h & 0x3FF)
			size := int(h >> 10 & 0x1FFF)
			if fid == fndChunkTerminator || fid == 0 {
				break
			}
			if size < 4 || d.pos-4+size > end {
				return nil, formatErr("FileNode", nodeOff, fmt.Sprintf("a Size between 4 and %d bytes, found %d", end-d.pos+4, size))
			}
			body := newBuf(d.bytes(size-4), nodeOff+4, fileNodeName(fid))
			n := fileNode{id: fid, off: nodeOff, data: body}
			stpFormat, cbFormat, baseType := h>>23&3, h>>25&3, h>>27&0xF
			if baseType == 1 || baseType == 2 {
				n.ref = readNodeChunkRef(body, stpFormat, cbFormat)
				if body.err != nil {
					return nil, body.err
				}
				if !n.ref.isNil() && (n.ref.Stp > uint64(s.f.size) || n.ref.Cb > uint64(s.f.size)-n.ref.Stp) {
					return nil, formatErr(fileNodeName(fid), nodeOff+4, fmt.Sprintf("a reference inside the file, found %d bytes at %d", n.ref.Cb, n.ref.Stp))
				}
			}
			nodes = append(nodes, n)
		}
		if count >= 0 && len(nodes) >= count {
			return nodes, nil
		}
		d.pos = end
		d.structure = "FileNodeListFragment.nextFragment"
		next := chunkRef{Stp: d.u64(), Cb: uint64(d.u32())}
		if d.u64() != fileNodeListFooterMagic {
			return nil, formatErr("FileNodeListFragment", start+int64(end)+12, "footer 0x8BC215C38233BA4B")
		}
		if next.isNil() || next.Stp == 0xFFFFFFFFFFFFFFFF {
			if count > len(nodes) {
				return nil, formatErr("FileNodeList", start, fmt.Sprintf("%d file nodes committed by the transaction log, found %d", count, len(nodes)))
			}
			return nodes, nil
		}
		ref = next
	}
}

// readNodeChunkRef reads a FileNodeChunkReference, [MS-ONESTORE] 2.2.4.2,
// in the sizes StpFormat and CbFormat give.
func readNodeChunkRef(d *buf, stpFormat, cbFormat uint32) chunkRef {
	var c chunkRef
	switch stpFormat {
	case 0:
		c.Stp = d.u64()
	case 1:
		c.Stp = uint64(d.u32())
		if c.Stp == 0xFFFFFFFF {
			c.Stp = 0xFFFFFFFFFFFFFFFF
		}
	case 2:
		c.Stp = uint64(d.u16()) * 8
	case 3:
		c.Stp = uint64(d.u32()) * 8
	}
	switch cbFormat {
	case 0:
		c.Cb = uint64(d.u32())
	case 1:
		c.Cb = d.u64()
	case 2:
		c.Cb = uint64(d.u8()) * 8
	case 3:
		c.Cb = uint64(d.u16()) * 8
	}
	return c
}

// readTransactionLog reads the TransactionLogFragments ([MS-ONESTORE]
// 2.3.3) and records, for each file node list, the number of nodes its
// last committed transaction made valid.
func (s *Store) readTransactionLog(h *Header) error {
	s.listCounts = map[uint32]uint32{}
	ref := h.TransactionLog
	done := uint32(0)
	pending := map[uint32]uint32{}
	for frag := 0; done < h.Transactions && !ref.isNil(); frag++ {
		if frag > int(s.f.size/20) {
			return formatErr("TransactionLogFragment", int64(ref.Stp), "a log that ends (fragments loop)")
		}
		if ref.Cb < 12 {
			return formatErr("TransactionLogFragment", int64(min(ref.Stp, 1<<62)), "at least 12 bytes")
		}
		p, err := s.f.read(int64(min(ref.Stp, 1<<62)), int64(min(ref.Cb, 1<<62)), "TransactionLogFragment")
		if err != nil {
			return err
		}
		d := newBuf(p, int64(ref.Stp), "TransactionEntry")
		entries := (len(p) - 12) / 8
		for i := 0; i < entries && done < h.Transactions; i++ {
			src, sw := d.u32(), d.u32()
			if src == 1 { // sentinel: the transaction is committed
				for k, v := range pending {
					s.listCounts[k] = v
				}
				clear(pending)
				done++
				continue
			}
			if src != 0 {
				pending[src] = sw
			}
		}
		d.pos = len(p) - 12
		ref = chunkRef{Stp: d.u64(), Cb: uint64(d.u32())}
	}
	if done < h.Transactions {
		return formatErr("TransactionLogFragment", int64(min(h.TransactionLog.Stp, 1<<62)), fmt.Sprintf("%d committed transactions, found %d", h.Transactions, done))
	}
	return nil
}

// fileNodeName is the specification's name of a FileNode type, for errors.
func fileNodeName(id uint16) string {
	switch id {
	case fndObjectSpaceManifestListReference:
		return "ObjectSpaceManifestListReferenceFND"
	case fndRevisionManifestListReference:
		return "RevisionManifestListReferenceFND"
	case fndRevisionManifestStart4, fndRevisionManifestStart6, fndRevisionManifestStart7:
		return "RevisionManifestStartFND"
	case fndGlobalIDTableEntry, fndGlobalIDTableEntry2, fndGlobalIDTableEntry3:
		return "GlobalIdTableEntryFNDX"
	case fndObjectDeclarationWithRefCount, fndObjectDeclarationWithRefCount2, fndObjectDeclaration2RefCount,
		fndObjectDeclaration2LargeRefCount, fndReadOnlyObjectDeclaration2Ref, fndReadOnlyObjectDeclaration2Large:
		return "ObjectDeclarationFND"
	case fndObjectDeclarationFileData3Ref, fndObjectDeclarationFileData3Large:
		return "ObjectDeclarationFileData3RefCountFND"
	case fndObjectGroupListReference:
		return "ObjectGroupListReferenceFND"
	case fndFileDataStoreObjectReference:
		return "FileDataStoreObjectReferenceFND"
	case fndRootObjectReference2, fndRootObjectReference3:
		return "RootObjectReferenceFND"
	}
	return fmt.Sprintf("FileNode 0x%03X", id)
}
