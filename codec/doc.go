// Package codec encrypts Temporal payloads with AES-256-GCM, so workflow
// inputs, results, signals, queries, memos and activity arguments are
// ciphertext in the Temporal server's database and in every history
// export.
//
// A Codec is a converter.PayloadCodec. Encode turns each payload (its data
// and its metadata, so even the encoding is hidden) into one payload with
// metadata encoding "binary/encrypted", the ID of the key that sealed it
// and the cipher name. Decode reverses it with whichever configured key
// has that ID. A payload that is not encrypted passes through a lenient
// Codec (New; the codec server's, so histories written before the codec
// still show) and is refused by a strict one (NewWithOptions with
// RequireEncrypted; the worker's) with ErrPlaintext, whose message names
// the codec server to start the workflow through: a workflow started with
// plain JSON by `temporal workflow start` without --codec-endpoint fails
// at once instead of running on input Temporal stored unencrypted.
//
// Keys rotate: a Codec holds a list of keys; the first encrypts, and any
// of them decrypts. To rotate, put a new key first and keep the old ones
// until no open workflow's history holds payloads sealed with them.
//
// Keys come from NOTEBRIDGE_CODEC_KEY (base64 of 32 random bytes, several
// separated by commas) or from a key file (one base64 key a line, the
// current key first) that must not be readable by group or others
// (LoadKeys, GenerateKeyFile, RotateKeyFile). A Key never prints: fmt,
// slog and JSON all show "[redacted]". Its ID is a public fingerprint.
//
// DataConverter wraps the SDK's default data converter with a Codec; give
// the same one to the worker's and every starter's client.Options
// (ConfigureClient does it from the environment and a key file). The
// codec server (cmd/codec-server) serves the same Codec over HTTP for the
// Web UI and the temporal CLI.
package codec
