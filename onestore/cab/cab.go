// Package cab reads Microsoft cabinet files ([MS-CAB]), the container of a
// OneNote package (.onepkg), and extracts them to a folder.
//
// It is a small reader written for this project. Of the Go modules for
// the format, google/go-cabfile is a bare-minimum parser last changed in
// 2022 that decompresses a whole folder for every file it is asked for;
// abemedia/go-cabinet and go-filesystems/cab are young (v0.2, 2026) and
// the module proxy this project builds from does not serve them. The part
// of the format OneNote writes is small: CFHEADER, CFFOLDER, CFFILE and
// CFDATA, stored or MSZIP-compressed (each block a deflate stream whose
// dictionary is the previous block's output, compress/flate's
// NewReaderDict). Every count and offset is checked against the file's
// size before it is used. Quantum and LZX folders, and cabinets that span
// several files, are refused by name.
package cab

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// FormatError says which cabinet structure is malformed, at what offset.
type FormatError struct {
	Structure string
	Offset    int64
	Expected  string
}

// Error names the structure, the offset and what was expected.
func (e *FormatError) Error() string {
	return fmt.Sprintf("cabinet %s at offset %d: expected %s", e.Structure, e.Offset, e.Expected)
}

// UnsupportedError names a compression or feature this reader refuses.
type UnsupportedError struct{ Feature string }

// Error names the feature.
func (e *UnsupportedError) Error() string { return "cabinet: " + e.Feature + " is not supported" }

// File is one file of the cabinet.
type File struct {
	Name   string // path inside the cabinet, with / separators
	Size   int64
	folder int
	offset int64 // uncompressed offset in its folder
}

type folder struct {
	off      int64 // coffCabStart: first CFDATA
	blocks   int   // cCFData
	compress int   // typeCompress & 0xF
}

// Reader is an opened cabinet.
type Reader struct {
	r        io.ReaderAt
	size     int64
	folders  []folder
	Files    []*File
	dataResv int // cbCFData
}

const (
	maxBlock      = 32768 + 6144 // a CFDATA block's cbData is at most 32 KiB plus slack
	flagPrev      = 0x1
	flagNext      = 0x2
	flagReserve   = 0x4
	compressNone  = 0
	compressMSZIP = 1
)

// NewReader reads the cabinet's header, folders and file list.
func NewReader(r io.ReaderAt, size int64) (*Reader, error) {
	rd := &Reader{r: r, size: size}
	hdr, err := rd.read(0, 36, "CFHEADER")
	if err != nil {
		return nil, err
	}
	if string(hdr[:4]) != "MSCF" {
		return nil, &FormatError{"CFHEADER", 0, `signature "MSCF"`}
	}
	le := binary.LittleEndian
	coffFiles := int64(le.Uint32(hdr[16:]))
	nFolders, nFiles, flags := int(le.Uint16(hdr[26:])), int(le.Uint16(hdr[28:])), le.Uint16(hdr[30:])
	if flags&(flagPrev|flagNext) != 0 {
		return nil, &UnsupportedError{"a cabinet that spans several files"}
	}
	off := int64(36)
	folderResv := 0
	if flags&flagReserve != 0 {
		p, err := rd.read(off, 4, "CFHEADER reserve")
		if err != nil {
			return nil, err
		}
		off += 4 + int64(le.Uint16(p))
		folderResv, rd.dataResv = int(p[2]), int(p[3])
	}
	if int64(nFolders)*8 > size || int64(nFiles)*16 > size {
		return nil, &FormatError{"CFHEADER", 26, "counts of folders and files that fit in the file"}
	}
	for i := range nFolders {
		p, err := rd.read(off, 8, "CFFOLDER")
		if err != nil {
			return nil, err
		}
		rd.folders = append(rd.folders, folder{off: int64(le.Uint32(p)), blocks: int(le.Uint16(p[4:])), compress: int(le.Uint16(p[6:]) & 0xF)})
		off += 8 + int64(folderResv)
		_ = i
	}
	off = coffFiles
	for range nFiles {
		p, err := rd.read(off, 16, "CFFILE")
		if err != nil {
			return nil, err
		}
		f := &File{Size: int64(le.Uint32(p)), offset: int64(le.Uint32(p[4:])), folder: int(le.Uint16(p[8:]))}
		if f.folder >= len(rd.folders) {
			return nil, &FormatError{"CFFILE", off + 8, fmt.Sprintf("iFolder below %d", len(rd.folders))}
		}
		name, err := rd.cstring(off+16, "CFFILE.szName")
		if err != nil {
			return nil, err
		}
		f.Name = strings.ReplaceAll(name, `\`, "/")
		rd.Files = append(rd.Files, f)
		off += 16 + int64(len(name)) + 1
	}
	return rd, nil
}

func (rd *Reader) read(off, n int64, structure string) ([]byte, error) {
	if off < 0 || n < 0 || off > rd.size || n > rd.size-off {
		return nil, &FormatError{structure, off, fmt.Sprintf("%d bytes inside the file of %d bytes", n, rd.size)}
	}
	p := make([]byte, n)
	if _, err := io.ReadFull(io.NewSectionReader(rd.r, off, n), p); err != nil {
		return nil, &FormatError{structure, off, "readable bytes: " + err.Error()}
	}
	return p, nil
}

func (rd *Reader) cstring(off int64, structure string) (string, error) {
	n := min(256, rd.size-off)
	p, err := rd.read(off, max(n, 0), structure)
	if err != nil {
		return "", err
	}
	i := bytes.IndexByte(p, 0)
	if i < 0 {
		return "", &FormatError{structure, off, "a NUL-terminated name of at most 255 bytes"}
	}
	return string(p[:i]), nil
}

// folderReader yields a folder's uncompressed bytes, block by block.
type folderReader struct {
	rd    *Reader
	f     folder
	off   int64
	block int
	buf   []byte // the current block's output not yet read
	prev  []byte // the previous block's output: MSZIP's dictionary
	out   int64  // bytes produced so far
}

func (fr *folderReader) Read(p []byte) (int, error) {
	for len(fr.buf) == 0 {
		if fr.out > fr.rd.maxOut() {
			return 0, &FormatError{"CFDATA", fr.off, fmt.Sprintf("at most %d bytes of content from a cabinet of %d bytes (%d times its size)", fr.rd.maxOut(), fr.rd.size, maxRatio)}
		}
		if fr.block >= fr.f.blocks {
			return 0, io.EOF
		}
		if err := fr.next(); err != nil {
			return 0, err
		}
	}
	n := copy(p, fr.buf)
	fr.buf = fr.buf[n:]
	fr.out += int64(n)
	return n, nil
}

// maxRatio bounds what a cabinet may expand to: OneNote's sections
// compress a few times over, a crafted cabinet a thousand times.
const maxRatio = 200

func (rd *Reader) maxOut() int64 { return rd.size*maxRatio + 1<<20 }

// next decodes one CFDATA block.
func (fr *folderReader) next() error {
	h, err := fr.rd.read(fr.off, 8, "CFDATA")
	if err != nil {
		return err
	}
	cb, uncomp := int64(binary.LittleEndian.Uint16(h[4:])), int(binary.LittleEndian.Uint16(h[6:]))
	data, err := fr.rd.read(fr.off+8+int64(fr.rd.dataResv), cb, "CFDATA.ab")
	if err != nil {
		return err
	}
	at := fr.off
	fr.off += 8 + int64(fr.rd.dataResv) + cb
	fr.block++
	switch fr.f.compress {
	case compressNone:
		fr.buf = data
	case compressMSZIP:
		if uncomp > 32768 {
			return &FormatError{"CFDATA", at + 6, fmt.Sprintf("cbUncomp of at most 32768 bytes, found %d", uncomp)}
		}
		if len(data) < 2 || data[0] != 'C' || data[1] != 'K' {
			return &FormatError{"CFDATA", at, `an MSZIP block starting with "CK"`}
		}
		out := make([]byte, uncomp)
		zr := flate.NewReaderDict(bytes.NewReader(data[2:]), fr.prev)
		if _, err := io.ReadFull(zr, out); err != nil {
			return &FormatError{"CFDATA", at, fmt.Sprintf("an MSZIP block of %d bytes: %v", uncomp, err)}
		}
		fr.buf, fr.prev = out, out
	default:
		return nil // unreachable: refused in Extract
	}
	return nil
}

// Extract writes every file of the cabinet under dir, refusing names that
// would leave it and content more than 200 times the cabinet's size.
func (rd *Reader) Extract(dir string) error {
	for i, f := range rd.folders {
		switch f.compress {
		case compressNone, compressMSZIP:
		case 2:
			return &UnsupportedError{"Quantum compression"}
		case 3:
			return &UnsupportedError{"LZX compression"}
		default:
			return &UnsupportedError{fmt.Sprintf("compression type %d", f.compress)}
		}
		var files []*File
		for _, file := range rd.Files {
			if file.folder == i {
				files = append(files, file)
			}
		}
		sort.SliceStable(files, func(a, b int) bool { return files[a].offset < files[b].offset })
		fr := &folderReader{rd: rd, f: f, off: f.off}
		pos := int64(0)
		for _, file := range files {
			if file.offset < pos {
				return &FormatError{"CFFILE", 0, "files of a folder that do not overlap"}
			}
			if _, err := io.CopyN(io.Discard, fr, file.offset-pos); err != nil {
				return truncated(file, err)
			}
			if err := write(dir, file, fr); err != nil {
				return err
			}
			pos = file.offset + file.Size
		}
	}
	return nil
}

func truncated(f *File, err error) error {
	var fe *FormatError
	if errors.As(err, &fe) {
		return err
	}
	return &FormatError{"CFDATA", 0, fmt.Sprintf("the data of %q (%d bytes): %v", f.Name, f.Size, err)}
}

func write(dir string, f *File, r io.Reader) error {
	clean := filepath.Clean(filepath.FromSlash(f.Name))
	if filepath.IsAbs(clean) || clean == "." || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return &FormatError{"CFFILE.szName", 0, fmt.Sprintf("a relative file name inside the cabinet, found %q", f.Name)}
	}
	path := filepath.Join(dir, clean)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nameClash(f, err)
	}
	out, err := os.Create(path)
	if err != nil {
		return nameClash(f, err)
	}
	if _, err := io.CopyN(out, r, f.Size); err != nil {
		out.Close()
		return truncated(f, err)
	}
	return out.Close()
}

// nameClash reports a file whose name collides with another's (a file
// where a folder of the same name is needed, or the reverse) as a format
// error; other errors are the destination's and returned as they are.
func nameClash(f *File, err error) error {
	if errors.Is(err, syscall.EISDIR) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.EEXIST) {
		// The system's words only: its path is the folder extracted to,
		// which names nothing in the cabinet.
		why := err
		var pe *os.PathError
		if errors.As(err, &pe) {
			why = pe.Err
		}
		return &FormatError{"CFFILE.szName", 0, fmt.Sprintf("file names that do not clash, found %q: %v", f.Name, why)}
	}
	return err
}
