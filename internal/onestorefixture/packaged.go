package onestorefixture

import (
	"bytes"
	"encoding/binary"
)

// The packaged layout for tests: the same object spaces as wfile.bytes,
// written as [MS-FSSHTTPB] data elements ([MS-ONESTORE] 2.8): one cell per
// object space in the data root's context, one revision per cell, one
// object group per revision.

type pw struct{ bytes.Buffer }

func (w *pw) le(v any) { _ = binary.Write(&w.Buffer, binary.LittleEndian, v) }

// start16 writes a 16-bit stream object start header.
func (w *pw) start16(typ int, compound bool) {
	v := uint16(typ) << 3
	if compound {
		v |= 4
	}
	w.le(v)
}

// start32 writes a 32-bit stream object start header.
func (w *pw) start32(typ int, compound bool) {
	v := uint32(2) | uint32(typ)<<3
	if compound {
		v |= 4
	}
	w.le(v)
}

func (w *pw) end8(typ int) { w.WriteByte(byte(typ<<2 | 1)) }

func (w *pw) end16(typ int) { w.le(uint16(typ<<2 | 3)) }

// compact writes a CompactUint64, in one byte when it fits, else in nine.
func (w *pw) compact(v uint64) {
	switch {
	case v == 0:
		w.WriteByte(0)
	case v < 128:
		w.WriteByte(byte(v<<1 | 1))
	default:
		w.WriteByte(0x80)
		w.le(v)
	}
}

// exg writes a compact xguid in its 5-bit form when N fits, else
// its 32-bit form.
func (w *pw) exg(e xguid) {
	switch {
	case e.IsZero():
		w.WriteByte(0)
	case e.N < 32:
		w.WriteByte(byte(e.N<<3 | 4))
		w.Write(e.GUID[:])
	default:
		w.WriteByte(0x80)
		w.le(e.N)
		w.Write(e.GUID[:])
	}
}

func (w *pw) exgs(es []xguid) {
	w.compact(uint64(len(es)))
	for _, e := range es {
		w.exg(e)
	}
}

func (w *pw) cells(cs []cellID) {
	w.compact(uint64(len(cs)))
	for _, c := range cs {
		w.exg(c.ctx)
		w.exg(c.space)
	}
}

func (w *pw) binary(p []byte) {
	w.compact(uint64(len(p)))
	w.Write(p)
}

// element writes one DataElement of type typ around body.
func (w *pw) element(id xguid, typ uint64, body func()) {
	w.start16(soDataElement, true)
	w.exg(id)
	w.WriteByte(0) // SerialNumber: none
	w.compact(typ)
	body()
	w.end8(soDataElement)
}

func (wf *wfile) packagedBytes() []byte {
	ctx := xguid{GUID: dataRootCellRoot.GUID, N: 1}
	elem := func(kind byte, i int) xguid {
		return xguid{GUID: GUID{0xDE, kind, byte(i), byte(i >> 8)}, N: 1}
	}
	w := &pw{}
	w.Write(wf.fileType[:])
	w.Write(wf.root.GUID[:])
	w.Write(make([]byte, 16))
	w.Write(guidFileFormatPack[:])
	w.le(uint32(0))
	w.start32(soOneNotePackaging, true)
	w.exg(elem('i', 0))
	w.Write(make([]byte, 16)) // guidCellSchemaId
	w.start16(soDataElementPackage, true)
	w.WriteByte(0)
	w.element(elem('m', 0), 2, func() {
		w.start16(soStorageManifest, true)
		w.Write(make([]byte, 16))
		w.start16(soStorageManifestRoot, false)
		w.exg(dataRootCellRoot)
		w.exg(ctx)
		w.exg(wf.root)
	})
	w.element(elem('i', 0), 1, func() {
		for i, sp := range wf.spaces {
			w.start16(soStorageIndexCell, false)
			w.exg(ctx)
			w.exg(sp.id)
			w.exg(elem('c', i))
			w.WriteByte(0)
			w.start16(soStorageIndexRevision, false)
			w.exg(elem('r', i))
			w.exg(elem('v', i))
			w.WriteByte(0)
		}
	})
	blobN := 0
	for i, sp := range wf.spaces {
		w.element(elem('c', i), 3, func() {
			w.start16(soCellManifest, false)
			w.exg(elem('r', i))
		})
		w.element(elem('v', i), 4, func() {
			w.start16(soRevisionManifest, true)
			w.exg(elem('r', i))
			w.exg(xguid{})
			if wf.encrypted && i == 0 {
				w.start16(soRevisionManifestRoot, false)
				w.exg(xguid{GUID: rootRoleGUID, N: roleEncryptionKey})
				w.exg(sp.objects[0].id)
			}
			for _, role := range []uint32{1, 2, 4} {
				if id, ok := sp.roots[role]; ok {
					w.start16(soRevisionManifestRoot, false)
					w.exg(xguid{GUID: rootRoleGUID, N: role})
					w.exg(id)
				}
			}
			w.start16(soRevisionManifestGroup, false)
			w.exg(elem('g', i))
		})
		type item struct {
			decl, data func()
		}
		var items []item
		var blobs [][]byte
		for _, o := range sp.objects {
			jcid := make([]byte, 4)
			binary.LittleEndian.PutUint32(jcid, o.jcid)
			items = append(items, item{
				decl: func() {
					w.start16(soObjectGroupObject, false)
					w.exg(o.id)
					w.compact(partitionMetadata)
					w.compact(4)
					w.compact(0)
					w.compact(0)
				},
				data: func() { w.start16(soObjectGroupDataObject, false); w.exgs(nil); w.cells(nil); w.binary(jcid) },
			})
			if o.fileData != nil {
				blob := elem('b', blobN)
				blobN++
				blobs = append(blobs, o.fileData)
				items = append(items, item{
					decl: func() {
						w.start16(soObjectGroupDataBlob, false)
						w.exg(o.id)
						w.exg(blob)
						w.compact(partitionFileData)
						w.compact(0)
						w.compact(0)
					},
					data: func() { w.start16(soObjectGroupBlobRef, false); w.exgs(nil); w.cells(nil); w.exg(blob) },
				})
				continue
			}
			body, oids, osids := propSetRefs(o.props, &gtable{idx: map[GUID]uint32{}})
			var cs []cellID
			for _, s := range osids {
				cs = append(cs, cellID{ctx, s})
			}
			items = append(items, item{
				decl: func() {
					w.start16(soObjectGroupObject, false)
					w.exg(o.id)
					w.compact(partitionData)
					w.compact(uint64(len(body)))
					w.compact(uint64(len(oids)))
					w.compact(uint64(len(cs)))
				},
				data: func() { w.start16(soObjectGroupDataObject, false); w.exgs(oids); w.cells(cs); w.binary(body) },
			})
		}
		w.element(elem('g', i), 5, func() {
			w.start16(soObjectGroupDeclarations, true)
			for _, it := range items {
				it.decl()
			}
			w.end8(soObjectGroupDeclarations)
			w.start16(soObjectGroupData, true)
			for _, it := range items {
				it.data()
			}
			w.end8(soObjectGroupData)
		})
		for k, b := range blobs {
			w.element(elem('b', blobN-len(blobs)+k), 0x0A, func() {
				w.start16(soObjectDataBlob, false)
				w.binary(b)
			})
		}
	}
	w.end8(soDataElementPackage)
	w.end16(soOneNotePackaging)
	return w.Bytes()
}
