// Drives emulator/notion with the official Notion JavaScript SDK
// (@notionhq/client 4.0.2, Notion-Version 2022-06-28, pinned in
// package-lock.json) and validates every answer against JSON schemas
// generated from the SDK's own response types (gen-schemas.mjs, run by
// `npm ci`). notionsdk_test.go starts the emulator and runs one case per
// process: `node sdk.mjs <case>`.
//
// Input (environment): NOTION_BASE (http://127.0.0.1:port), NOTION_TOKEN
// (never printed), NOTION_ARGS (JSON: ids and files a case needs). Output:
// one JSON object on standard output, always with `schemaErrors` (every
// answer that does not match the SDK's type); the Go test holds the
// expectations.

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client, APIResponseError, collectPaginatedAPI, iteratePaginatedAPI, isFullBlock, isNotionClientError } from "@notionhq/client";
import { newChecker } from "./checker.mjs";
import { TYPES } from "./schema-types.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const base = need("NOTION_BASE");
const token = need("NOTION_TOKEN");
const args = JSON.parse(process.env.NOTION_ARGS || "{}");

function need(name) {
  const v = process.env[name];
  if (!v) {
    throw new Error(`${name} is not set: run this script through notionsdk_test.go`);
  }
  return v;
}

// ---- schemas ----

const sdkVersion = require("@notionhq/client/package.json").version;
const { check, checkList, schemaErrors } = newChecker({ dir: here, schemaFile: "notion.json", sdkVersion, types: TYPES });

// ---- SDK helpers ----

const notion = new Client({ auth: token, baseUrl: base, logLevel: "error" });

function errorOf(e) {
  if (APIResponseError.isAPIResponseError(e)) {
    let body = null;
    try {
      body = JSON.parse(e.body);
    } catch {
      body = null;
    }
    return {
      apiResponseError: true,
      code: e.code,
      status: e.status,
      message: e.message,
      retryAfter: e.headers && typeof e.headers.get === "function" ? e.headers.get("retry-after") : null,
      body,
    };
  }
  return { apiResponseError: false, notionClientError: isNotionClientError(e), name: e && e.name, code: e && e.code, message: String(e && e.message) };
}

async function attempt(fn) {
  try {
    return { ok: true, value: await fn() };
  } catch (e) {
    return { ok: false, error: errorOf(e) };
  }
}

function title(text) {
  return { title: { title: [{ type: "text", text: { content: text } }] } };
}

async function newPage(text) {
  return check("CreatePageResponse", await notion.pages.create({ parent: { page_id: args.rootPageId }, properties: title(text) }), `pages.create ${text}`);
}

// readTree lists block_id's children with collectPaginatedAPI, recursively,
// and nests each block's children inside its type object (the shape
// notion/blocks.Block unmarshals). Each listed block is validated as a full
// block before the children are added.
async function readTree(blockId, where) {
  const out = [];
  let i = 0;
  for (const b of await collectPaginatedAPI(notion.blocks.children.list, { block_id: blockId, page_size: 100 })) {
    if (!isFullBlock(b)) {
      schemaErrors.push({ where: `${where}[${i}]`, type: "BlockObjectResponse", errors: ["collectPaginatedAPI gave a partial block"] });
      continue;
    }
    check("BlockObjectResponse", b, `${where}[${i}] ${b.type}`);
    if (b.has_children && b.type !== "child_page" && b.type !== "child_database") {
      b[b.type].children = await readTree(b.id, `${where}[${i}].children`);
    }
    out.push(b);
    i++;
  }
  return out;
}

// appendTree appends blocks under parentId in requests of at most 100,
// each block without its children (a table keeps its rows, which Notion
// needs in the creating request), then each block's children under the ID
// the answer gave it. Returns the number of requests.
async function appendTree(parentId, blocks, where) {
  let requests = 0;
  for (let i = 0; i < blocks.length; i += 100) {
    const chunk = blocks.slice(i, i + 100);
    const sent = chunk.map((b) => {
      const copy = structuredClone(b);
      if (copy.type !== "table" && copy[copy.type]) {
        delete copy[copy.type].children;
      }
      return copy;
    });
    const answer = checkList("AppendBlockChildrenResponse", await notion.blocks.children.append({ block_id: parentId, children: sent }), `${where} append`);
    requests++;
    for (const [k, b] of chunk.entries()) {
      const kids = b.type !== "table" && b[b.type] && b[b.type].children;
      if (kids && kids.length) {
        requests += await appendTree(answer.results[k].id, kids, `${where}[${i + k}]`);
      }
    }
  }
  return requests;
}

// upload sends one file through the SDK: single_part, or multi_part in
// parts of partBytes, then complete. Returns every answer.
async function upload(file) {
  const data = readFileSync(file.path);
  const blob = (part) => new Blob([part], { type: file.contentType });
  const answers = {};
  if (!file.partBytes) {
    answers.create = check("CreateFileUploadResponse", await notion.fileUploads.create({ mode: "single_part", filename: file.filename, content_type: file.contentType }), `fileUploads.create ${file.filename}`);
    answers.send = check("SendFileUploadResponse", await notion.fileUploads.send({ file_upload_id: answers.create.id, file: { filename: file.filename, data: blob(data) } }), `fileUploads.send ${file.filename}`);
  } else {
    const parts = Math.ceil(data.length / file.partBytes);
    answers.create = check("CreateFileUploadResponse", await notion.fileUploads.create({ mode: "multi_part", number_of_parts: parts, filename: file.filename, content_type: file.contentType }), `fileUploads.create ${file.filename}`);
    answers.sends = [];
    for (let p = 0; p < parts; p++) {
      const part = data.subarray(p * file.partBytes, (p + 1) * file.partBytes);
      answers.sends.push(check("SendFileUploadResponse", await notion.fileUploads.send({ file_upload_id: answers.create.id, part_number: String(p + 1), file: { filename: file.filename, data: blob(part) } }), `fileUploads.send ${file.filename} part ${p + 1}`));
    }
    answers.complete = check("CompleteFileUploadResponse", await notion.fileUploads.complete({ file_upload_id: answers.create.id }), `fileUploads.complete ${file.filename}`);
  }
  answers.retrieve = check("GetFileUploadResponse", await notion.fileUploads.retrieve({ file_upload_id: answers.create.id }), `fileUploads.retrieve ${file.filename}`);
  return answers;
}

// ---- cases ----

const cases = {
  // Every block type the converter emits (the JSON notion/blocks marshals),
  // media by file upload and by external URL, appended through the SDK and
  // read back with collectPaginatedAPI.
  async blocks() {
    const uploads = {};
    for (const f of args.files) {
      uploads[f.placeholder] = await upload(f);
    }
    let json = readFileSync(args.blocksFile, "utf8");
    for (const [placeholder, u] of Object.entries(uploads)) {
      json = json.split(placeholder).join(u.create.id);
    }
    const children = JSON.parse(json);
    const page = await newPage("Every block type");
    const appended = [];
    for (let i = 0; i < children.length; i += 100) {
      appended.push(checkList("AppendBlockChildrenResponse", await notion.blocks.children.append({ block_id: page.id, children: children.slice(i, i + 100) }), `blocks.children.append [${i}:]`));
    }
    const tree = await readTree(page.id, "page");
    const retrieved = check("GetPageResponse", await notion.pages.retrieve({ page_id: page.id }), "pages.retrieve");
    return { pageId: page.id, uploadStatus: Object.fromEntries(Object.entries(uploads).map(([k, u]) => [k, u.retrieve.status])), appendedCount: appended.reduce((n, a) => n + a.results.length, 0), tree, retrievedTitle: retrieved.properties.title };
  },

  // Pages as the converter made them from OneNote HTML: each page's
  // uploads, then its blocks appended one level per request (a table with
  // its rows), the way any writer may, and read back.
  async converted() {
    const uploads = {};
    for (const f of args.files) {
      uploads[f.placeholder] = (await upload(f)).create.id;
    }
    const pages = [];
    for (const p of args.pages) {
      let json = readFileSync(p.blocksFile, "utf8");
      for (const [placeholder, id] of Object.entries(uploads)) {
        json = json.split(placeholder).join(id);
      }
      const page = await newPage(p.title);
      const requests = await appendTree(page.id, JSON.parse(json), p.title);
      pages.push({ title: p.title, requests, tree: await readTree(page.id, p.title) });
    }
    return { pages };
  },

  // File uploads alone: the states the SDK reports at each step.
  async uploads() {
    const out = {};
    for (const f of args.files) {
      const a = await upload(f);
      out[f.filename] = {
        created: { status: a.create.status, filename: a.create.filename, contentType: a.create.content_type, uploadUrl: a.create.upload_url || "", completeUrl: a.create.complete_url || "", numberOfParts: a.create.number_of_parts || null },
        sent: (a.sends || [a.send]).map((s) => s.status),
        completed: a.complete ? a.complete.status : null,
        retrieved: { status: a.retrieve.status, contentLength: a.retrieve.content_length, expiryTime: a.retrieve.expiry_time },
      };
    }
    const listed = checkList("ListFileUploadsResponse", await notion.fileUploads.list({ status: "uploaded" }), "fileUploads.list");
    out.listedUploaded = listed.results.map((u) => u.filename).sort();
    return out;
  },

  // iteratePaginatedAPI and collectPaginatedAPI over block children and a
  // database query, with small pages so that the cursors are followed.
  async paginate() {
    const page = await newPage("Pagination");
    const n = args.count;
    const para = (i) => ({ object: "block", type: "paragraph", paragraph: { rich_text: [{ type: "text", text: { content: `item ${i}` } }] } });
    for (let i = 0; i < n; i += 100) {
      checkList("AppendBlockChildrenResponse", await notion.blocks.children.append({ block_id: page.id, children: Array.from({ length: Math.min(100, n - i) }, (_, k) => para(i + k)) }), `append [${i}:]`);
    }
    const iterated = [];
    for await (const b of iteratePaginatedAPI(notion.blocks.children.list, { block_id: page.id, page_size: 7 })) {
      iterated.push(b.paragraph.rich_text[0].plain_text);
    }
    const pages = [];
    let cursor;
    do {
      const r = checkList("ListBlockChildrenResponse", await notion.blocks.children.list({ block_id: page.id, page_size: 40, start_cursor: cursor }), `blocks.children.list cursor ${cursor || "(none)"}`);
      pages.push({ results: r.results.length, hasMore: r.has_more, nextCursor: r.next_cursor });
      cursor = r.next_cursor || undefined;
    } while (cursor);
    const collected = (await collectPaginatedAPI(notion.blocks.children.list, { block_id: page.id })).map((b) => b.paragraph.rich_text[0].plain_text);

    const db = check("CreateDatabaseResponse", await notion.databases.create({ parent: { type: "page_id", page_id: page.id }, title: [{ type: "text", text: { content: "Rows" } }], properties: { Name: { title: {} } } }), "databases.create");
    for (let i = 0; i < args.rows; i++) {
      check("CreatePageResponse", await notion.pages.create({ parent: { database_id: db.id }, properties: { Name: { title: [{ type: "text", text: { content: `row ${i}` } }] } } }), `row ${i}`);
    }
    const rows = [];
    for await (const r of iteratePaginatedAPI(notion.databases.query, { database_id: db.id, page_size: 3 })) {
      rows.push(r.properties.Name.title[0].plain_text);
    }
    const firstQuery = checkList("QueryDatabaseResponse", await notion.databases.query({ database_id: db.id, page_size: 3 }), "databases.query page_size 3");
    return { iterated, collected, pages, rows, firstQueryHasMore: firstQuery.has_more };
  },

  // A section database as the writer makes it: create, add the
  // self-relation, rows, query by filter and sort, update a row.
  async database() {
    const page = await newPage("Database");
    const db = check(
      "CreateDatabaseResponse",
      await notion.databases.create({
        parent: { type: "page_id", page_id: page.id },
        title: [{ type: "text", text: { content: "Section" } }],
        properties: {
          Name: { title: {} },
          "OneNote page ID": { rich_text: {} },
          Created: { date: {} },
          "OneNote link": { url: {} },
          "Links to rewrite": { checkbox: {} },
          "Migration status": { select: { options: [{ name: "writing", color: "yellow" }, { name: "done", color: "green" }] } },
        },
      }),
      "databases.create",
    );
    const updated = check("UpdateDatabaseResponse", await notion.databases.update({ database_id: db.id, properties: { "Parent item": { relation: { database_id: db.id, type: "single_property", single_property: {} } } } }), "databases.update (self-relation)");
    const rows = [];
    for (const [i, r] of args.rows.entries()) {
      rows.push(
        check(
          "CreatePageResponse",
          await notion.pages.create({
            parent: { database_id: db.id },
            properties: {
              Name: { title: [{ type: "text", text: { content: r.name } }] },
              "OneNote page ID": { rich_text: [{ type: "text", text: { content: r.oneNoteId } }] },
              Created: { date: { start: r.created } },
              "OneNote link": { url: r.link || null },
              "Links to rewrite": { checkbox: r.links },
              "Migration status": { select: { name: "writing" } },
              "Parent item": { relation: i > 0 ? [{ id: rows[0].id }] : [] },
            },
          }),
          `row ${r.name}`,
        ),
      );
    }
    const byId = checkList("QueryDatabaseResponse", await notion.databases.query({ database_id: db.id, filter: { property: "OneNote page ID", rich_text: { equals: args.rows[1].oneNoteId } } }), "query by OneNote page ID");
    const pending = checkList(
      "QueryDatabaseResponse",
      await notion.databases.query({ database_id: db.id, filter: { and: [{ property: "Links to rewrite", checkbox: { equals: true } }, { property: "Migration status", select: { equals: "writing" } }] }, sorts: [{ property: "Created", direction: "descending" }] }),
      "query links pending, newest first",
    );
    const done = check("UpdatePageResponse", await notion.pages.update({ page_id: rows[0].id, properties: { "Migration status": { select: { name: "done" } } } }), "pages.update status");
    const got = check("GetDatabaseResponse", await notion.databases.retrieve({ database_id: db.id }), "databases.retrieve");
    return {
      propertyTypes: Object.fromEntries(Object.entries(got.properties).map(([k, v]) => [k, v.type])),
      relationTarget: updated.properties["Parent item"] && updated.properties["Parent item"].relation ? updated.properties["Parent item"].relation.database_id : null,
      byId: byId.results.map((p) => p.properties.Name.title[0].plain_text),
      pending: pending.results.map((p) => p.properties.Name.title[0].plain_text),
      doneStatus: done.properties["Migration status"].select && done.properties["Migration status"].select.name,
      childParent: rows[1] && rows[1].properties["Parent item"].relation.map((r) => r.id),
      firstRowId: rows[0].id,
    };
  },

  // Archive a page and a block; read them back; edit an archived one;
  // restore.
  async archive() {
    const page = await newPage("To archive");
    const holder = await newPage("Holds a block");
    const appended = checkList("AppendBlockChildrenResponse", await notion.blocks.children.append({ block_id: holder.id, children: [{ object: "block", type: "paragraph", paragraph: { rich_text: [{ type: "text", text: { content: "doomed" } }] } }, { object: "block", type: "divider", divider: {} }] }), "append");
    const archivedPage = check("UpdatePageResponse", await notion.pages.update({ page_id: page.id, archived: true }), "pages.update archived");
    const readArchived = check("GetPageResponse", await notion.pages.retrieve({ page_id: page.id }), "pages.retrieve archived");
    const editArchived = await attempt(() => notion.pages.update({ page_id: page.id, properties: title("edited") }));
    const restored = check("UpdatePageResponse", await notion.pages.update({ page_id: page.id, archived: false }), "pages.update restore");
    const deleted = check("DeleteBlockResponse", await notion.blocks.delete({ block_id: appended.results[0].id }), "blocks.delete");
    const readDeleted = check("GetBlockResponse", await notion.blocks.retrieve({ block_id: appended.results[0].id }), "blocks.retrieve deleted");
    const left = checkList("ListBlockChildrenResponse", await notion.blocks.children.list({ block_id: holder.id }), "children after delete");
    const rootChildren = await collectPaginatedAPI(notion.blocks.children.list, { block_id: args.rootPageId });
    return {
      archivedPage: archivedPage.archived,
      readArchived: readArchived.archived,
      editArchived,
      restored: restored.archived,
      deleted: deleted.archived,
      readDeleted: readDeleted.archived,
      left: left.results.map((b) => b.type),
      rootChildTitles: rootChildren.filter((b) => b.type === "child_page").map((b) => b.child_page.title),
    };
  },

  // Error answers as the SDK raises them.
  async errors() {
    const page = await newPage("Errors");
    const long = "x".repeat(2001);
    return {
      validation: await attempt(() => notion.blocks.children.append({ block_id: page.id, children: [{ object: "block", type: "paragraph", paragraph: { rich_text: [{ type: "text", text: { content: long } }] } }] })),
      badLink: await attempt(() => notion.blocks.children.append({ block_id: page.id, children: [{ object: "block", type: "paragraph", paragraph: { rich_text: [{ type: "text", text: { content: "l", link: { url: "not a url" } } }] } }] })),
      notFound: await attempt(() => notion.pages.retrieve({ page_id: args.missingPageId })),
      unshared: await attempt(() => notion.pages.retrieve({ page_id: args.unsharedPageId })),
      unauthorized: await attempt(() => new Client({ auth: "ntn_not_a_token", baseUrl: base, logLevel: "error" }).users.me({})),
      restricted: await attempt(() => new Client({ auth: args.readOnlyToken, baseUrl: base, logLevel: "error" }).pages.create({ parent: { page_id: page.id }, properties: title("not allowed") })),
      restrictedRead: await attempt(() => new Client({ auth: args.readOnlyToken, baseUrl: base, logLevel: "error" }).pages.retrieve({ page_id: page.id }).then((p) => check("GetPageResponse", p, "pages.retrieve read-only"))),
    };
  },

  // Requests in a burst past the token's bucket: 429 rate_limited with
  // Retry-After, as the SDK surfaces it (4.x does not retry).
  async ratelimit() {
    const answers = [];
    for (let i = 0; i < args.burst; i++) {
      answers.push(await attempt(() => notion.users.me({}).then((me) => check("GetSelfResponse", me, `users.me ${i}`))));
    }
    return { answers: answers.map((a) => (a.ok ? { ok: true } : a)) };
  },

  // users.me and search.
  async misc() {
    const me = check("GetSelfResponse", await notion.users.me({}), "users.me");
    await newPage("Findable page");
    const found = checkList("SearchResponse", await notion.search({ query: "Findable" }), "search");
    return { meType: me.type, found: found.results.map((r) => r.object) };
  },
};

const name = process.argv[2];
if (!cases[name]) {
  console.error(`unknown case ${JSON.stringify(name)}; one of: ${Object.keys(cases).join(", ")}`);
  process.exit(2);
}
const result = await cases[name]();
process.stdout.write(JSON.stringify({ ...result, schemaErrors }));
