// Package codec encrypts Temporal payloads with AES-256-GCM, so workflow
// inputs, results, signals, queries, memos and activity arguments are
// ciphertext in the Temporal server's database and in every history
// export.
//
// A Codec is a converter.PayloadCodec. Encode turns each payload (its data
// and its metadata, so even the encoding is hidden) into one payload with
// metadata encoding "binary/encrypted", the ID of the key that sealed it
// and the cipher name. Decode reverses it with whichever configured key
// has that ID, and passes payloads that are not encrypted through
// unchanged, so the codec server still shows histories written before
// the codec. A worker refuses them instead: DataConverterWithOptions with
// RequireEncrypted fails the decoding of a payload that holds data but is
// not encrypted with ErrPlaintext, whose message names the codec server
// to send it through, so a workflow started with plain JSON by `temporal
// workflow start` without --codec-endpoint fails at once instead of
// running on input Temporal stored unencrypted.
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
// the same keys to the worker's and every starter's client.Options
// (ConfigureClient does it from the environment and a key file; the
// worker asks for RequireEncrypted). The
// codec server (cmd/codec-server) serves the same Codec over HTTP for the
// Web UI and the temporal CLI.
package codec
