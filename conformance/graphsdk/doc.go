// Package graphsdk is the conformance suite of emulator/graph against the
// official Microsoft Graph JavaScript SDK (@microsoft/microsoft-graph-client
// 3.0.7, pinned in package-lock.json here): the SDK, unmodified, drives the
// emulator over HTTPS, and the tests check that what it gets is the data the
// emulator was given. sdk.mjs holds the SDK calls, graphsdk_test.go the
// emulator set-up and the expectations. `scripts/install-npm.sh` installs
// the Node packages; see conformance/README.md.
package graphsdk
