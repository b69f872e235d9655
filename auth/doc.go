// Package auth signs users in to Microsoft, keeps their tokens, and loads
// the Notion token, for the Note Bridge worker and CLI.
//
// Microsoft sign-in uses the device-code flow of the Microsoft identity
// platform through golang.org/x/oauth2, as a public client (a client ID,
// no secret), with a configurable tenant and authority and the delegated
// scopes offline_access and Notes.Read (or Notes.Read.All). Store.Login
// shows the person a code and a URL, waits until they approve, and stores
// the tokens. Login errors say what to do: approve the request, be quicker
// with the code, or allow public client flows on the app registration
// (AADSTS7000218).
//
// A Store keeps one file per user in a private directory
// (~/.config/notebridge/tokens/<user>.json.enc), encrypted with AES-256-GCM
// under a key from NOTEBRIDGE_TOKEN_KEY or a key file (LoadKey,
// GenerateKeyFile). Writes are atomic (temporary file and rename) and are
// serialised per user within the process and, through a lock file, across
// processes on the host.
//
// Store.TokenSource(user) is what activities use: it implements the
// onenote package's TokenSource and TokenInvalidator, refreshes the access
// token a margin before it expires (five minutes, or a fifth of the
// token's lifetime if that is shorter, so a 45-second token is refreshed
// about once per lifetime, not on every call), stores the new refresh
// token, runs one refresh at a time per user, and refreshes after a 401.
// A user who never signed in gets ErrNotSignedIn; a revoked or expired
// sign-in gives ErrSignInExpired. Both name the command that fixes them
// (starter login --user X). Workflows carry only user IDs; tokens never
// enter Temporal, and this package does not import the Temporal SDK.
//
// # Refreshes and crashes
//
// Each refresh returns a new refresh token. The Microsoft identity
// platform does not revoke the redeemed one: it stays valid until its own
// lifetime ends (90 days by default), unless the user's sessions are
// revoked. A refresh holds the user lock (in the process and across
// processes) from reading the token file to writing the new tokens, and
// the new tokens are written (synced, renamed over the old file) before
// they are used. So a process killed at any moment of a refresh leaves the
// old file, whose refresh token still works, or the new one: no sign-in
// is lost. If Microsoft answers invalid_grant, the file is read again and
// a refresh token stored meanwhile (by a process the lock does not reach:
// another host, a platform without flock) is tried once. An identity
// platform that revoked a refresh token the moment it is redeemed (the
// Graph emulator's StrictRefreshRotation) would leave one narrow window:
// a kill between its answer and the write of the file loses the sign-in.
// That loss is reported once per process, as ErrSignInExpired naming
// starter login --user X; a migration stopped by it keeps every page it
// wrote and resumes when started again after the login.
//
// NotionToken reads the Notion integration token from NOTION_TOKEN or
// NOTION_TOKEN_FILE into a Secret, which prints as "[redacted]".
//
// # Threat model
//
// The assets are the Microsoft refresh tokens (90 days of read access to a
// user's notebooks, renewed on every use), the access tokens (about an
// hour), the token encryption key and the Notion token (write access to a
// workspace). The package defends against disclosure through the places
// secrets usually leak: logs, error messages, formatted values and
// Temporal history (no type here prints a secret under any fmt verb, JSON
// or slog, and errors from the identity platform are reduced to their
// codes with the tokens scrubbed); against other local users (files 0600
// in a 0700 directory, and a file others can read is refused, not used);
// against a copied or backed-up token directory without its key (AES-GCM
// encryption at rest); against swapping files between users (the user ID
// is authenticated data, so alice's file cannot be renamed to bob's); and
// against corruption and races (atomic writes, and one refresh per user
// at a time, across processes too, so no two refreshes spend the same
// refresh token).
//
// It does not defend against an attacker who runs code as the service
// account or as root, or who can read both the token directory and the
// key (environment or key file): they hold the tokens, and keeping the key
// elsewhere (a secret manager, a separate mount) is the operator's job.
// Nor does it defend against a compromised Microsoft or Notion account,
// against memory inspection of the running process (Go strings cannot be
// wiped), or against the loss of the key, which only means signing in
// again. Access tokens already handed out stay valid at Microsoft until
// they expire; revoke sessions in Entra ID to cut them off early.
package auth
