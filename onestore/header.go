package onestore

// Header of a revision store file, [MS-ONESTORE] 2.3.1. Only the fields
// this reader uses are kept.
type Header struct {
	FileType       GUID // guidFileType: a section (.one) or a table of contents (.onetoc2)
	File           GUID // guidFile: the file's identity (FileIdentityGuid of the section in the .onetoc2)
	FileFormat     GUID // guidFileFormat: the revision store, or the packaged ([MS-FSSHTTPB]) layout
	LastCodeWrote  uint32
	Transactions   uint32   // cTransactionsInLog
	TransactionLog chunkRef // fcrTransactionLog, FileChunkReference64x32
	FileNodeRoot   chunkRef // fcrFileNodeListRoot, FileChunkReference64x32
}

const headerSize = 1024

var (
	guidFileTypeSection = mustGUID("{7B5C52E4-D88C-4DA7-AEB1-5378D02996D3}") // .one, [MS-ONESTORE] 2.3.1
	guidFileTypeTOC     = mustGUID("{43FF2FA1-EFD9-4C76-9EE2-10EA5722765F}") // .onetoc2
	guidFileFormatStore = mustGUID("{109ADD3F-911B-49F5-A5D0-1791EDC8AED8}") // revision store file format
	guidFileFormatPack  = mustGUID("{638DE92F-A6D4-4BC1-9A36-B3FC2511A5B7}") // packaging start, [MS-ONESTORE] 2.8.1
	// guidFileType of OneNote 2007 sections and tables of contents: the
	// same value as the 2010 one; 2007 is told apart by the file format
	// versions (ffv*), which are 0x1A and 0x1B for OneNote 2007 files
	// ([MS-ONESTORE] 2.3.1: 0x2A for .one and 0x1B for .onetoc2 written by
	// OneNote 2010 and later).
)

// chunkRef is a FileChunkReference ([MS-ONESTORE] 2.2.4): a byte range in
// the file.
type chunkRef struct {
	Stp, Cb uint64
}

// isNil reports fcrNil (stp all ones, cb zero) or fcrZero.
func (c chunkRef) isNil() bool {
	return c.Cb == 0 && (c.Stp == 0 || c.Stp == 0xFFFFFFFFFFFFFFFF || c.Stp == 0xFFFFFFFF)
}

// parseHeader reads the 1024-byte Header at offset 0.
func parseHeader(f *file) (*Header, error) {
	// The packaged layout shares only the first 64 bytes (four GUIDs).
	first, err := f.read(0, 64, "Header")
	if err != nil {
		return nil, err
	}
	if GUID(first[48:64]) == guidFileFormatPack {
		h := &Header{FileFormat: guidFileFormatPack}
		copy(h.FileType[:], first[0:16])
		copy(h.File[:], first[16:32])
		if h.FileType != guidFileTypeSection && h.FileType != guidFileTypeTOC {
			return nil, formatErr("Header", 0, "guidFileType of a .one or .onetoc2 file, found "+h.FileType.String())
		}
		return h, nil
	}
	p, err := f.read(0, headerSize, "Header")
	if err != nil {
		return nil, err
	}
	d := newBuf(p, 0, "Header")
	var h Header
	h.FileType = d.guid()
	h.File = d.guid()
	d.guid() // guidLegacyFileVersion
	h.FileFormat = d.guid()
	h.LastCodeWrote = d.u32() // ffvLastCodeThatWroteToThisFile
	d.u32()                   // ffvOldestCodeThatHasWrittenToThisFile
	d.u32()                   // ffvNewestCodeThatHasWrittenToThisFile
	oldestReader := d.u32()   // ffvOldestCodeThatMayReadThisFile
	d.pos = 96
	h.Transactions = d.u32() // cTransactionsInLog
	d.pos = 112
	legacyRoot := chunkRef{Stp: uint64(d.u32()), Cb: uint64(d.u32())} // fcrLegacyFileNodeListRoot
	d.pos = 160
	h.TransactionLog = chunkRef{Stp: d.u64(), Cb: uint64(d.u32())}
	h.FileNodeRoot = chunkRef{Stp: d.u64(), Cb: uint64(d.u32())}
	if d.err != nil {
		return nil, d.err
	}
	if h.FileType != guidFileTypeSection && h.FileType != guidFileTypeTOC {
		return nil, formatErr("Header", 0, "guidFileType of a .one or .onetoc2 file, found "+h.FileType.String())
	}
	if h.FileFormat == guidFileFormatPack {
		return &h, nil
	}
	if h.FileFormat != guidFileFormatStore {
		return nil, formatErr("Header", 48, "guidFileFormat {109ADD3F-911B-49F5-A5D0-1791EDC8AED8}, found "+h.FileFormat.String())
	}
	if isOneNote2007(h.FileType, h.LastCodeWrote, oldestReader) || (h.FileNodeRoot.isNil() && !legacyRoot.isNil()) {
		return nil, &UnsupportedError{
			Format: "a OneNote 2007 file (revision store version 0x1A)",
			Advice: "open the notebook in OneNote 2010 or later, let it upgrade the notebook (File > Info > Settings > Properties > Convert to 2010-2016), and export it again",
		}
	}
	return &h, nil
}

// isOneNote2007 tells a OneNote 2007 file by its format versions: a 2007
// section has ffvLastCodeThatWroteToThisFile 0x1A (2010 and later write
// 0x2A); a 2007 table of contents is read only by code version 0x1A.
func isOneNote2007(fileType GUID, lastWrote, oldestReader uint32) bool {
	if fileType == guidFileTypeSection {
		return lastWrote < 0x2A
	}
	return lastWrote < 0x1B && oldestReader < 0x1B
}
