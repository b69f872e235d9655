// Package notionsdk is the conformance suite of emulator/notion against the
// official Notion JavaScript SDK (@notionhq/client 4.0.2, the last line that
// speaks Notion-Version 2022-06-28 by default, pinned in package-lock.json
// here): the SDK, unmodified, drives the emulator, and every answer is
// validated against JSON schemas generated from the SDK's own TypeScript
// response types (gen-schemas.mjs, ts-json-schema-generator, run by npm ci).
// sdk.mjs holds the SDK calls, notionsdk_test.go the emulator set-up and the
// expectations. @notionhq/client 5.26.0 (npm alias notion-sdk-5, also
// pinned) runs the same way on its default Notion-Version 2025-09-03 (data
// sources, views) and once on 2026-03-11: sdk5.mjs and sdk5_test.go, its
// answers checked against schemas from its own types (checker.mjs). `scripts/install-npm.sh` installs the Node packages; see
// conformance/README.md.
package notionsdk
