// Drives emulator/notion with the official Notion JavaScript SDK 5.x
// (@notionhq/client 5.26.0, installed as notion-sdk-5 and pinned in
// package-lock.json) on its default Notion-Version (2025-09-03): databases
// with data sources, rows under a data source, views. One case also runs
// on 2026-03-11. Every answer is validated against JSON schemas generated
// from this SDK's own response types (gen-schemas.mjs, notion5.json).
// notionsdk_test.go runs one case per process: `node sdk5.mjs <case>`;
// input and output as in sdk.mjs.

import { createRequire } from "node:module";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { Client, APIResponseError } from "notion-sdk-5";
import { newChecker } from "./checker.mjs";
import { TYPES5 } from "./schema-types.mjs";

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

const sdkVersion = require("notion-sdk-5/package.json").version;
const { check, checkList, schemaErrors } = newChecker({ dir: here, schemaFile: "notion5.json", sdkVersion, types: TYPES5 });
const [checkAnswer, checkListAnswer] = [check, checkList];

// The SDK unmodified, on its default version.
const notion = new Client({ auth: token, baseUrl: base, logLevel: "error" });

async function attempt(fn) {
  try {
    return { ok: true, value: await fn() };
  } catch (e) {
    if (APIResponseError.isAPIResponseError(e)) {
      return { ok: false, error: { apiResponseError: true, code: e.code, status: e.status, message: e.message } };
    }
    return { ok: false, error: { apiResponseError: false, name: e && e.name, message: String(e && e.message) } };
  }
}

const text = (content) => [{ type: "text", text: { content } }];

// newSection makes a database like a section's: a title, an order and a
// text property, under the root page.
async function newSection(client, name) {
  const db = check("CreateDatabaseResponse", await client.databases.create({
    parent: { type: "page_id", page_id: args.rootPageId },
    title: text(name),
    initial_data_source: { properties: { Name: { title: {} }, Order: { number: {} }, Secret: { rich_text: {} } } },
  }), `databases.create ${name}`);
  return { db, ds: db.data_sources[0].id };
}

const cases = {
  // A database and its data source: schema, rows, queries, search, a
  // second data source.
  async dataSources() {
    const { db, ds } = await newSection(notion, "Section");
    const got = check("GetDatabaseResponse", await notion.databases.retrieve({ database_id: db.id }), "databases.retrieve");
    const src = check("GetDataSourceResponse", await notion.dataSources.retrieve({ data_source_id: ds }), "dataSources.retrieve");
    const updated = check("UpdateDataSourceResponse", await notion.dataSources.update({ data_source_id: ds,
      properties: { Done: { checkbox: {} }, Parent: { relation: { data_source_id: ds, single_property: {} } } } }), "dataSources.update");
    const rows = [];
    for (const [name, order] of [["second", 2], ["first", 1]]) {
      rows.push(check("CreatePageResponse", await notion.pages.create({ parent: { type: "data_source_id", data_source_id: ds },
        properties: { Name: { title: text(name) }, Order: { number: order } } }), `pages.create ${name}`));
    }
    const sorted = checkList("QueryDataSourceResponse", await notion.dataSources.query({ data_source_id: ds,
      sorts: [{ property: "Order", direction: "ascending" }] }), "dataSources.query");
    const trashed = check("UpdatePageResponse", await notion.pages.update({ page_id: rows[0].id, in_trash: true }), "pages.update in_trash");
    const after = checkList("QueryDataSourceResponse", await notion.dataSources.query({ data_source_id: ds }), "dataSources.query after trash");
    const second = check("CreateDataSourceResponse", await notion.dataSources.create({ parent: { type: "database_id", database_id: db.id },
      title: text("Ideas"), properties: { Idea: { title: {} } } }), "dataSources.create");
    const found = checkList("SearchResponse", await notion.search({ filter: { property: "object", value: "data_source" } }), "search data_source");
    const appended = checkList("AppendBlockChildrenResponse", await notion.blocks.children.append({ block_id: rows[1].id,
      children: [{ paragraph: { rich_text: text("body") } }] }), "blocks.children.append");
    const dbAfter = check("GetDatabaseResponse", await notion.databases.retrieve({ database_id: db.id }), "databases.retrieve after");
    return {
      dataSourceCount: got.data_sources.length,
      hasProperties: "properties" in got,
      sourceProperties: Object.keys(src.properties).sort(),
      updatedProperties: Object.keys(updated.properties).sort(),
      relationTarget: updated.properties.Parent.relation.data_source_id,
      dataSourceId: ds,
      rowParent: rows[0].parent,
      sortedNames: sorted.results.map((r) => r.properties.Name.title[0].plain_text),
      trashed: trashed.in_trash,
      afterTrash: after.results.length,
      secondParent: second.parent,
      foundObjects: [...new Set(found.results.map((r) => r.object))],
      appended: appended.results.length,
      dataSourcesAfter: dbAfter.data_sources.length,
    };
  },

  // Views: a table view sorted by a property with a property hidden,
  // listed, read, changed and deleted.
  async views() {
    const { db, ds } = await newSection(notion, "Viewed");
    const src = await notion.dataSources.retrieve({ data_source_id: ds });
    const id = (name) => src.properties[name].id;
    const created = check("CreateViewResponse", await notion.views.create({ data_source_id: ds, database_id: db.id, name: "In order", type: "table",
      sorts: [{ property: "Order", direction: "ascending" }],
      configuration: { type: "table", properties: [{ property_id: id("Name"), visible: true }, { property_id: id("Secret"), visible: false }] },
      position: { type: "start" } }), "views.create");
    const listed = check("ListDatabaseViewsResponse", await notion.views.list({ database_id: db.id }), "views.list");
    const got = check("GetViewResponse", await notion.views.retrieve({ view_id: created.id }), "views.retrieve");
    const renamed = check("UpdateViewResponse", await notion.views.update({ view_id: created.id, name: "By order" }), "views.update");
    const badSort = await attempt(() => notion.views.create({ data_source_id: ds, name: "Bad", type: "table", sorts: [{ property: "Missing", direction: "ascending" }] }));
    const deleted = check("DeleteViewResponse", await notion.views.delete({ view_id: created.id }), "views.delete");
    const left = check("ListDatabaseViewsResponse", await notion.views.list({ data_source_id: ds }), "views.list after delete");
    return {
      listed: listed.results.map((v) => v.id),
      createdId: created.id,
      sorts: got.sorts,
      hidden: got.configuration.properties.filter((p) => !p.visible).map((p) => p.property_name),
      renamed: renamed.name,
      badSort: badSort.ok ? null : badSort.error,
      deleted: deleted.id,
      left: left.results.length,
    };
  },

  // Notion-Version 2026-03-11, set explicitly: in_trash, not archived;
  // position, not after.
  async version20260311() {
    const client = new Client({ auth: token, baseUrl: base, logLevel: "error", notionVersion: "2026-03-11" });
    // The SDK's types describe 2025-09-03 answers, which still carry the
    // deprecated archived; 2026-03-11 drops it (upgrade guide 2026-03-11,
    // asserted below by hasArchivedField). The answers are validated with
    // it put back from in_trash, and for nothing else.
    const withArchived = (o) => (o && (o.object === "page" || o.object === "block") ? { ...o, archived: o.in_trash } : o);
    const check = (type, value, where) => (checkAnswer(type, withArchived(value), where), value);
    const checkList = (type, value, where) => (checkListAnswer(type, { ...value, results: value.results.map(withArchived) }, where), value);
    const page = check("CreatePageResponse", await client.pages.create({ parent: { page_id: args.rootPageId }, properties: { title: { title: text("Newest") } } }), "pages.create");
    await client.blocks.children.append({ block_id: page.id, children: [{ paragraph: { rich_text: text("second") } }] });
    const start = checkList("AppendBlockChildrenResponse", await client.blocks.children.append({ block_id: page.id,
      children: [{ paragraph: { rich_text: text("first") } }], position: { type: "start" } }), "blocks.children.append position");
    const kids = checkList("ListBlockChildrenResponse", await client.blocks.children.list({ block_id: page.id }), "blocks.children.list");
    const archived = await attempt(() => client.pages.update({ page_id: page.id, archived: true }));
    const after = await attempt(() => client.blocks.children.append({ block_id: page.id, children: [{ paragraph: { rich_text: text("x") } }], after: kids.results[0].id }));
    const trashed = check("UpdatePageResponse", await client.pages.update({ page_id: page.id, in_trash: true }), "pages.update in_trash");
    return {
      appended: start.results.length,
      order: kids.results.map((b) => b.paragraph.rich_text[0].plain_text),
      archived: archived.ok ? null : archived.error,
      after: after.ok ? null : after.error,
      trashed: trashed.in_trash,
      hasArchivedField: "archived" in trashed,
    };
  },
};

const name = process.argv[2];
if (!cases[name]) {
  console.error(`unknown case ${JSON.stringify(name)}; one of: ${Object.keys(cases).join(", ")}`);
  process.exit(2);
}
const result = await cases[name]();
process.stdout.write(JSON.stringify({ ...result, schemaErrors }));
