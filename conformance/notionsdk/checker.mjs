// The answer checker of sdk.mjs (SDK 4.x) and sdk5.mjs (SDK 5.x): it
// validates SDK answers against the JSON schemas gen-schemas.mjs generated
// from that SDK's own response types, and collects every mismatch.

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv from "ajv";

// newChecker loads schemaFile (under node_modules/.notebridge-schemas in
// dir), refusing one generated from another SDK version or type list.
export function newChecker({ dir, schemaFile, sdkVersion, types }) {
  const file = join(dir, "node_modules/.notebridge-schemas", schemaFile);
  if (!existsSync(file)) {
    throw new Error(`${file} is missing (npm ci writes it with gen-schemas.mjs): run scripts/install-npm.sh`);
  }
  const doc = JSON.parse(readFileSync(file, "utf8"));
  if (doc.sdkVersion !== sdkVersion || JSON.stringify(doc.roots) !== JSON.stringify(types)) {
    throw new Error(`${file} is stale (generated from @notionhq/client ${doc.sdkVersion} for other types; ${sdkVersion} is installed): run scripts/install-npm.sh`);
  }
  const ajv = new Ajv({ allErrors: true, strict: false });
  ajv.addSchema(doc, "notion");
  const validators = new Map();
  function validator(type) {
    if (!validators.has(type)) {
      const v = ajv.getSchema(`notion#/definitions/${type}`);
      if (!v) {
        throw new Error(`no schema for ${type}; add it to schema-types.mjs and run scripts/install-npm.sh`);
      }
      validators.set(type, v);
    }
    return validators.get(type);
  }
  // The full-object type of each object kind the SDK knows.
  const full = { page: "PageObjectResponse", database: "DatabaseObjectResponse", file_upload: "FileUploadObjectResponse", data_source: "DataSourceObjectResponse", view: "DataSourceViewObjectResponse" };
  for (const [k, t] of Object.entries(full)) {
    if (!types.includes(t)) {
      delete full[k];
    }
  }
  const schemaErrors = [];

  // branchOf names the full-object type to report against when a union
  // type (a block, or Partial | Full) fails: its errors say what is wrong.
  function branchOf(type, value) {
    if (value && value.object === "block" && typeof value.type === "string") {
      return value.type.replace(/(^|_)([a-z0-9])/g, (_, __, c) => c.toUpperCase()) + "BlockObjectResponse";
    }
    return value && full[value.object] && full[value.object] !== type ? full[value.object] : null;
  }

  // check validates value (an SDK answer) against the SDK type and records
  // any mismatch under `where`. Returns value.
  function check(type, value, where) {
    const stripped = strip(value);
    const v = validator(type);
    if (v(stripped)) {
      return value;
    }
    let errors = v.errors;
    const branch = branchOf(type, stripped);
    if (branch) {
      const bv = validator(branch);
      if (!bv(stripped)) {
        errors = bv.errors;
      }
    }
    schemaErrors.push({ where, type: branch ? `${type} (as ${branch})` : type, errors: summarize(errors) });
    return value;
  }

  // checkList validates a list answer and each of its results as a full
  // object of its kind.
  function checkList(type, value, where) {
    check(type, { ...value, results: [] }, where);
    for (const [i, r] of (value.results || []).entries()) {
      const f = branchOf("", r);
      if (f) {
        check(f, r, `${where}.results[${i}]`);
      }
    }
    return value;
  }

  return { check, checkList, schemaErrors, branchOf };
}

// strip returns a copy of value without the fields real Notion sends that
// the SDK's types leave out, so that they are not reported:
// request_id on every answer (notion-reality.md fact 3), and has_more
// beside a relation property's value (Notion's page-property reference).
function strip(value) {
  if (!value || typeof value !== "object") {
    return value;
  }
  const copy = structuredClone(value);
  delete copy.request_id;
  const pages = copy.object === "page" ? [copy] : copy.object === "list" && Array.isArray(copy.results) ? copy.results.filter((r) => r && r.object === "page") : [];
  for (const p of pages) {
    for (const prop of Object.values(p.properties || {})) {
      if (prop && prop.type === "relation") {
        delete prop.has_more;
      }
    }
  }
  return copy;
}

// summarize keeps the errors that say what is wrong: in a union (anyOf)
// discriminated by `type` or `object`, only those of the branch the value
// names.
function summarize(errors) {
  // A branch is wrong for one instance (the object whose type it names),
  // not for the others the same union schema checks.
  const wrong = [];
  for (const e of errors) {
    const m = e.keyword === "const" && /^(.*\/anyOf\/\d+)\/properties\/(type|object)\/const$/.exec(e.schemaPath);
    if (m) {
      wrong.push({ schema: m[1] + "/", instance: e.instancePath.slice(0, e.instancePath.lastIndexOf("/")) });
    }
  }
  const inWrongBranch = (e) => wrong.some((w) => e.schemaPath.startsWith(w.schema) && (e.instancePath === w.instance || e.instancePath.startsWith(w.instance + "/")));
  const kept = errors.filter((e) => e.keyword !== "anyOf" && !inWrongBranch(e));
  const list = kept.length ? kept : errors;
  const lines = list.map(
    (e) =>
      `${e.instancePath || "(root)"} ${e.message}${e.params && e.params.additionalProperty ? `: ${e.params.additionalProperty}` : ""}${e.params && e.params.allowedValues ? ` ${JSON.stringify(e.params.allowedValues)}` : ""}`,
  );
  return [...new Set(lines)].slice(0, 12);
}
