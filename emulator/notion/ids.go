package notion

import (
	"encoding/hex"
	"hash/fnv"
	"math/rand/v2"
	"strings"
)

// newUUID draws a version-4 UUID from rng (the server's seeded source).
func newUUID(rng *rand.Rand) string {
	var b [16]byte
	for i := 0; i < 16; i += 8 {
		v := rng.Uint64()
		for j := 0; j < 8; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// normalizeID accepts a Notion ID with or without dashes, in any case, and
// returns its dashed lower-case form.
func normalizeID(s string) (string, bool) {
	h := strings.ToLower(strings.ReplaceAll(s, "-", ""))
	if len(h) != 32 {
		return "", false
	}
	if _, err := hex.DecodeString(h); err != nil {
		return "", false
	}
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32], true
}

// shortID draws a short property ID like Notion's ("a%3Bc" style IDs are
// URL-escaped; these use only letters and digits).
func shortID(rng *rand.Rand) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, 4)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b)
}

// derivedUUID is a version-4-shaped UUID drawn from its own source seeded
// by kind and owner (e.g. a database's n-th data source or view), so that
// data sources and views leave the server's other IDs as they were.
func derivedUUID(kind, owner string, n int) string {
	h := fnv.New64a()
	h.Write([]byte(kind + "\x00" + owner))
	return newUUID(rand.New(rand.NewPCG(h.Sum64(), uint64(n))))
}
