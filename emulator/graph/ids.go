package graph

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strconv"
	"strings"
)

// digest hashes parts (NUL-separated) into 32 bytes.
func digest(parts ...string) [32]byte {
	return sha256.Sum256([]byte(strings.Join(parts, "\x00")))
}

// hexID returns n hex digits derived from parts.
func hexID(n int, parts ...string) string {
	d := digest(parts...)
	return hex.EncodeToString(d[:])[:n]
}

// guidOf returns a GUID (lower case, 8-4-4-4-12) derived from parts.
func guidOf(parts ...string) string {
	d := digest(parts...)
	h := hex.EncodeToString(d[:16])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// seedOf derives a 64-bit seed from parts.
func seedOf(parts ...string) uint64 {
	d := digest(parts...)
	return binary.LittleEndian.Uint64(d[:8])
}

// ownerHex is the 16-digit upper-case owner id (a OneDrive cid) of a user.
func ownerHex(owner string) string {
	return strings.ToUpper(hexID(16, "owner", owner))
}

// unitFloat maps parts to a deterministic float in [0,1).
func unitFloat(parts ...string) float64 {
	return float64(seedOf(parts...)>>11) / (1 << 53)
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }
