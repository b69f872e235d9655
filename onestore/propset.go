package onestore

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Object is a decoded object: its identity, its JCID ([MS-ONESTORE]
// 2.6.14) and its properties.
type Object struct {
	ID    ExtendedGUID
	JCID  uint32
	Props PropertySet
	entry *objectEntry
}

// PropertySet is a decoded PropertySet, [MS-ONESTORE] 2.6.7, with the
// object, object space and context references resolved to ExtendedGUIDs.
type PropertySet []Property

// Property is one property: its PropertyID ([MS-ONESTORE] 2.6.6, the
// boolValue bit cleared) and its value.
type Property struct {
	ID   uint32
	Bool bool           // type 0x2
	Data []byte         // types 0x3 to 0x7: the bytes as stored
	Refs []ExtendedGUID // types 0x8 to 0xD: objects, object spaces or contexts
	Sets []PropertySet  // types 0x10 and 0x11
}

// Property types, [MS-ONESTORE] 2.6.6.
const (
	ptNoData           = 0x1
	ptBool             = 0x2
	ptOneByte          = 0x3
	ptTwoBytes         = 0x4
	ptFourBytes        = 0x5
	ptEightBytes       = 0x6
	ptLengthPrefixed   = 0x7
	ptObjectID         = 0x8
	ptObjectIDs        = 0x9
	ptObjectSpaceID    = 0xA
	ptObjectSpaceIDs   = 0xB
	ptContextID        = 0xC
	ptContextIDs       = 0xD
	ptPropertyValues   = 0x10
	ptPropertySet      = 0x11
	maxPropertyNesting = 16
)

// get returns the property with id (its type bits included), if present.
func (ps PropertySet) get(id uint32) (Property, bool) {
	for _, p := range ps {
		if p.ID == id&0x7FFFFFFF {
			return p, true
		}
	}
	return Property{}, false
}

func (ps PropertySet) boolean(id uint32) bool {
	p, _ := ps.get(id)
	return p.Bool
}

func (ps PropertySet) u32(id uint32) (uint32, bool) {
	p, ok := ps.get(id)
	switch {
	case !ok:
		return 0, false
	case len(p.Data) == 1:
		return uint32(p.Data[0]), true
	case len(p.Data) == 2:
		return uint32(binary.LittleEndian.Uint16(p.Data)), true
	case len(p.Data) >= 4:
		return binary.LittleEndian.Uint32(p.Data), true
	}
	return 0, false
}

func (ps PropertySet) u64(id uint32) (uint64, bool) {
	p, ok := ps.get(id)
	if !ok || len(p.Data) < 8 {
		return 0, false
	}
	return binary.LittleEndian.Uint64(p.Data), true
}

func (ps PropertySet) f32(id uint32) (float32, bool) {
	v, ok := ps.u32(id)
	return math.Float32frombits(v), ok
}

func (ps PropertySet) str(id uint32) string {
	p, _ := ps.get(id)
	return utf16String(p.Data)
}

func (ps PropertySet) bytes(id uint32) []byte {
	p, _ := ps.get(id)
	return p.Data
}

func (ps PropertySet) refs(id uint32) []ExtendedGUID {
	p, _ := ps.get(id)
	return p.Refs
}

func (ps PropertySet) ref(id uint32) (ExtendedGUID, bool) {
	r := ps.refs(id)
	if len(r) == 0 {
		return ExtendedGUID{}, false
	}
	return r[0], true
}

func (ps PropertySet) sets(id uint32) []PropertySet {
	p, _ := ps.get(id)
	return p.Sets
}

// idStream is one of the three streams of an ObjectSpaceObjectPropSet
// ([MS-ONESTORE] 2.6.1): compact IDs consumed in order by the properties
// that reference objects, object spaces or contexts.
type idStream struct {
	ids  []uint32
	next int
}

// decodeObject reads an object's ObjectSpaceObjectPropSet from the file.
// It keeps nothing: callers cache what they reuse.
func (s *Store) decodeObject(e *objectEntry) (*Object, error) {
	o := &Object{ID: e.id, JCID: e.jcid, entry: e}
	if e.jcid&jcidIsPropertySet != 0 && !e.ref.isNil() {
		p, err := s.f.read(int64(e.ref.Stp), int64(e.ref.Cb), "ObjectSpaceObjectPropSet")
		if err != nil {
			return nil, err
		}
		ps, err := decodePropSet(p, int64(e.ref.Stp), e)
		if err != nil {
			return nil, err
		}
		o.Props = ps
	}
	return o, nil
}

// decodePropSet decodes an ObjectSpaceObjectPropSet, [MS-ONESTORE] 2.6.1.
func decodePropSet(p []byte, base int64, e *objectEntry) (PropertySet, error) {
	d := newBuf(p, base, "ObjectSpaceObjectPropSet")
	streams := [3]*idStream{}
	present := true
	for i := range streams {
		if !present {
			streams[i] = &idStream{}
			continue
		}
		// ObjectSpaceObjectStreamHeader, 2.6.5: Count (24 bits),
		// ExtendedStreamsPresent (bit 30), OsidStreamNotPresent (bit 31).
		off := d.off()
		h := d.u32()
		count := int(h & 0xFFFFFF)
		if count > d.remaining()/4 {
			return nil, formatErr("ObjectSpaceObjectStreamHeader", off, fmt.Sprintf("a Count of at most %d compact IDs, found %d", d.remaining()/4, count))
		}
		st := &idStream{ids: make([]uint32, count)}
		for k := range st.ids {
			st.ids[k] = d.u32()
		}
		streams[i] = st
		switch i {
		case 0:
			present = h>>31&1 == 0 // OsidStreamNotPresent
		case 1:
			present = h>>30&1 == 1 // ExtendedStreamsPresent
		}
	}
	if d.err != nil {
		return nil, d.err
	}
	d.structure = "PropertySet"
	dec := &propDecoder{d: d, streams: streams, e: e}
	ps := dec.set(0)
	if d.err != nil {
		return nil, d.err
	}
	return ps, nil
}

type propDecoder struct {
	d       *buf
	streams [3]*idStream
	e       *objectEntry
}

// set decodes one PropertySet, [MS-ONESTORE] 2.6.7.
func (dec *propDecoder) set(depth int) PropertySet {
	d := dec.d
	if depth > maxPropertyNesting {
		d.fail(fmt.Sprintf("property sets nested at most %d deep", maxPropertyNesting))
		return nil
	}
	n := int(d.u16())
	if n*4 > d.remaining() {
		d.fail(fmt.Sprintf("%d PropertyIDs inside the object", n))
		return nil
	}
	ids := make([]uint32, n)
	for i := range ids {
		ids[i] = d.u32()
	}
	ps := make(PropertySet, 0, min(n, 64))
	for _, id := range ids {
		if d.err != nil {
			return nil
		}
		p := Property{ID: id & 0x7FFFFFFF, Bool: id>>31 == 1}
		switch typ := id >> 26 & 0x1F; typ {
		case ptNoData, ptBool:
		case ptOneByte:
			p.Data = d.bytes(1)
		case ptTwoBytes:
			p.Data = d.bytes(2)
		case ptFourBytes:
			p.Data = d.bytes(4)
		case ptEightBytes:
			p.Data = d.bytes(8)
		case ptLengthPrefixed:
			p.Data = d.bytes(int(min(d.u32(), math.MaxInt32)))
		case ptObjectID, ptObjectSpaceID, ptContextID:
			p.Refs = dec.take(int(typ-ptObjectID)/2, 1)
		case ptObjectIDs, ptObjectSpaceIDs, ptContextIDs:
			p.Refs = dec.take(int(typ-ptObjectIDs)/2, int(min(d.u32(), math.MaxInt32)))
		case ptPropertyValues:
			// prtArrayOfPropertyValues, 2.6.9: a count, then one
			// PropertyID and that many property sets.
			count := int(min(d.u32(), math.MaxInt32))
			if count == 0 {
				break
			}
			d.u32()
			if count > d.remaining()/2 {
				d.fail(fmt.Sprintf("%d property sets inside the object", count))
				return nil
			}
			for range count {
				p.Sets = append(p.Sets, dec.set(depth+1))
				if d.err != nil {
					return nil
				}
			}
		case ptPropertySet:
			p.Sets = []PropertySet{dec.set(depth + 1)}
		default:
			d.fail(fmt.Sprintf("a known property type, found 0x%X in PropertyID 0x%08X", typ, id))
			return nil
		}
		ps = append(ps, p)
	}
	return ps
}

// take consumes n compact IDs from stream i (0 objects, 1 object spaces,
// 2 contexts) and resolves them.
func (dec *propDecoder) take(i, n int) []ExtendedGUID {
	st := dec.streams[i]
	if n < 0 || n > len(st.ids)-st.next {
		dec.d.fail(fmt.Sprintf("%d more compact IDs in stream %d, found %d", n, i, len(st.ids)-st.next))
		return nil
	}
	// Capacity is bounded by the stream, which the file holds four bytes
	// an ID of.
	out := make([]ExtendedGUID, 0, n)
	for range n {
		id, err := dec.resolve(i, st.next, st.ids[st.next])
		if err != nil {
			if dec.d.err == nil {
				dec.d.err = err
			}
			return nil
		}
		out = append(out, id)
		st.next++
	}
	if dec.e.packaged {
		kept := out[:0]
		for _, id := range out {
			if !id.IsZero() {
				kept = append(kept, id)
			}
		}
		out = kept
	}
	return out
}

// resolve turns the k-th compact ID of stream i into an ExtendedGUID:
// through the global ID table in the revision store, by position in the
// packaged layout.
func (dec *propDecoder) resolve(i, k int, cid uint32) (ExtendedGUID, error) {
	e := dec.e
	if !e.packaged {
		return resolveCompactID(cid, e.globalID, dec.d.off())
	}
	refs := [3][]ExtendedGUID{e.refs, e.spaceRefs, e.ctxRefs}[i]
	if k < len(refs) {
		return refs[k], nil
	}
	// More compact IDs than references: a compact ID that stands for one
	// reference only names it wherever it appears.
	ids := dec.streams[i].ids
	found, n := ExtendedGUID{}, 0
	for j := 0; j < len(refs) && j < len(ids); j++ {
		if ids[j] == cid {
			found, n = refs[j], n+1
		}
	}
	// Otherwise the reference is unknown: it is left out (take drops
	// zero references), as a reference to an object not in the file.
	return found, nil
}
