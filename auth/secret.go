package auth

import (
	"fmt"
	"log/slog"
)

// redacted is what every secret-holding type prints instead of its value.
const redacted = "[redacted]"

// Secret is a string that must never be printed or logged: a Notion
// integration token, for example. Its String, GoString, Format, MarshalJSON
// and LogValue methods all produce "[redacted]"; call Reveal to get the
// value where it is actually needed (an Authorization header).
type Secret string

// Reveal returns the secret value.
func (s Secret) Reveal() string { return string(s) }

// IsZero reports whether the secret is empty.
func (s Secret) IsZero() bool { return s == "" }

// String returns "[redacted]".
func (s Secret) String() string { return redacted }

// GoString returns "[redacted]".
func (s Secret) GoString() string { return redacted }

// Format writes "[redacted]" for every verb, so no fmt verb (%x, %d, %#v)
// can print the value.
func (s Secret) Format(f fmt.State, verb rune) { writeRedacted(f) }

// MarshalJSON encodes the secret as the JSON string "[redacted]".
func (s Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }

// MarshalText returns "[redacted]", for encoders that prefer text.
func (s Secret) MarshalText() ([]byte, error) { return []byte(redacted), nil }

// LogValue makes slog print "[redacted]".
func (s Secret) LogValue() slog.Value { return slog.StringValue(redacted) }

// writeRedacted is the body of Format for every secret-holding type.
func writeRedacted(f fmt.State) { _, _ = f.Write([]byte(redacted)) }
