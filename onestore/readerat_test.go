package onestore

import "bytes"

func bytesReaderAt(b []byte) *bytes.Reader { return bytes.NewReader(b) }
