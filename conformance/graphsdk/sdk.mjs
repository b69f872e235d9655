// Drives emulator/graph with the official Microsoft Graph JavaScript SDK
// (@microsoft/microsoft-graph-client, pinned in package-lock.json), exactly
// as an application would: Client.init with its default middleware chain
// (authentication, retry, redirect, telemetry), customHosts naming the
// emulator's host so the token is attached, and the SDK's own PageIterator
// and batch helpers. graphsdk_test.go starts the emulator over HTTPS and runs
// one case per process: `node sdk.mjs <case>`.
//
// Input (environment): GRAPH_BASE (https://127.0.0.1:port), GRAPH_TOKEN (the
// caller's bearer token; never printed), GRAPH_ARGS (JSON: the ids a case
// needs). Output: one JSON object on standard output with what the SDK
// returned; the Go test holds the expectations. Progress goes to standard
// error, which the Go test logs.

import { createHash } from "node:crypto";
import graph from "@microsoft/microsoft-graph-client";

const { Client, PageIterator, BatchRequestContent, BatchResponseContent, ResponseType, GraphError } = graph;

const base = need("GRAPH_BASE");
const token = need("GRAPH_TOKEN");
const args = JSON.parse(process.env.GRAPH_ARGS || "{}");
const host = new URL(base).hostname;

function need(name) {
  const v = process.env[name];
  if (!v) {
    throw new Error(`${name} is not set: run this script through graphsdk_test.go`);
  }
  return v;
}

function newClient() {
  return Client.init({
    authProvider: (done) => done(null, token),
    baseUrl: base,
    defaultVersion: "v1.0",
    customHosts: new Set([host]),
  });
}

// errorOf keeps what the SDK parsed out of an error answer.
function errorOf(e) {
  if (e instanceof GraphError) {
    return {
      isGraphError: true,
      statusCode: e.statusCode,
      code: e.code,
      requestId: e.requestId,
      date: e.date instanceof Date && !isNaN(e.date) ? e.date.toISOString() : null,
    };
  }
  return { isGraphError: false, name: e && e.name, message: String(e && e.message) };
}

async function attempt(fn) {
  try {
    return { ok: true, value: await fn() };
  } catch (e) {
    return { ok: false, error: errorOf(e) };
  }
}

function sha256(buf) {
  return createHash("sha256").update(Buffer.from(buf)).digest("hex");
}

const sel = "$select=id,displayName";

const cases = {
  // The two-level tree in one request, with $select in every clause, as
  // the reference gives it (graph-reality.md facts 1-3), and the plain form.
  async tree(client) {
    const selected = await client
      .api("/me/onenote/notebooks")
      .select(["id", "displayName"])
      .expand(`sections(${sel}),sectionGroups(${sel};$expand=sections(${sel}))`)
      .get();
    const plain = await client.api("/me/onenote/notebooks").expand("sections,sectionGroups($expand=sections)").get();
    return { selected, plain };
  },

  // PageIterator through a section's pages: 20 per response and an
  // absolute https @odata.nextLink the SDK must follow with the token.
  async pages(client) {
    const first = await client.api(`/me/onenote/sections/${args.sectionId}/pages`).select(["id", "title"]).get();
    const ids = [];
    const it = new PageIterator(client, first, (page) => {
      ids.push(page.id);
      return true;
    });
    await it.iterate();
    return { firstCount: first.value.length, firstNextLink: first["@odata.nextLink"] || "", ids };
  },

  // Page HTML, then every resource its img/object tags point at, fetched
  // through the absolute URLs the HTML carries (as a migrator does).
  async content(client) {
    const html = await client.api(`/me/onenote/pages/${args.pageId}/content`).responseType(ResponseType.TEXT).get();
    const urls = [...html.matchAll(/(?:src|data-fullres-src|data)="([^"]+\/resources\/[^"]+)"/g)].map((m) => m[1]);
    const resources = [];
    for (const url of [...new Set(urls)]) {
      const buf = await client.api(url).responseType(ResponseType.ARRAYBUFFER).get();
      resources.push({ url, bytes: buf.byteLength, sha256: sha256(buf) });
    }
    return { htmlSha256: sha256(Buffer.from(html, "utf8")), htmlBytes: Buffer.byteLength(html, "utf8"), resources };
  },

  // BatchRequestContent / BatchResponseContent. 3.0.7 keeps the version
  // segment of an absolute request URL in the batch body (SDK issue #1178,
  // fixed after 3.0.7), so the steps name the host without /v1.0, the
  // workaround the SDK's maintainers give for 3.0.7. `versioned` sends one
  // step the naive way to see what the server answers.
  async batch(client) {
    // The SDK accepts only parallel, serial or "same" dependencies; here
    // every step depends on the first ("same").
    const step = (id, url, dependsOn) => ({
      id,
      request: new Request(url, { method: "GET" }),
      ...(dependsOn ? { dependsOn } : {}),
    });
    const after = ["section"];
    const steps = [
      step("section", `${base}/me/onenote/sections/${args.sectionId}?$select=id,displayName`),
      step("notebooks", `${base}/me/onenote/notebooks?$select=id,displayName`, after),
      ...args.pageIds.map((id, i) => step(`page${i}`, `${base}/me/onenote/pages/${id}?$select=id,title`, after)),
      step("versioned", `${base}/v1.0/me/onenote/notebooks`, after),
    ];
    const content = new BatchRequestContent(steps);
    const body = await content.getContent();
    const raw = await client.api("/$batch").post(body);
    const parsed = new BatchResponseContent(raw);
    const responses = {};
    for (const [id, res] of parsed.getResponses()) {
      let json = null;
      try {
        json = await res.json();
      } catch {
        json = null;
      }
      responses[id] = { status: res.status, body: json };
    }
    return { sentUrls: Object.fromEntries(body.requests.map((r) => [r.id, r.url])), responses };
  },

  // The default RetryHandler against a user whose window is full: every
  // answer is 429 20166 without Retry-After. What it does is recorded, not
  // judged.
  async retry(client) {
    const started = Date.now();
    const r = await attempt(() => client.api("/me/onenote/notebooks").get());
    return { ...r, elapsedMs: Date.now() - started };
  },

  // One user's token on another user's data.
  async isolation(client) {
    const get = (path, type) => attempt(() => client.api(path).responseType(type).get().then(() => "answered"));
    return {
      mePage: await get(`/me/onenote/pages/${args.otherPageId}`, ResponseType.JSON),
      meContent: await get(`/me/onenote/pages/${args.otherPageId}/content`, ResponseType.TEXT),
      meResource: await get(`/me/onenote/resources/${args.otherResourceId}/$value`, ResponseType.ARRAYBUFFER),
      usersPage: await get(`/users/${args.otherUser}/onenote/pages/${args.otherPageId}`, ResponseType.JSON),
      usersResource: await get(`/users/${args.otherUser}/onenote/resources/${args.otherResourceId}/$value`, ResponseType.ARRAYBUFFER),
    };
  },

  // Error answers the SDK must parse into a GraphError.
  async errors(client) {
    return {
      topTooLarge: await attempt(() => client.api(`/me/onenote/sections/${args.sectionId}/pages`).top(200).get()),
      missingPage: await attempt(() => client.api("/me/onenote/pages/0-00000000000000000000000000000000!1-x").get()),
      badToken: await attempt(() =>
        Client.init({ authProvider: (done) => done(null, "not-a-token"), baseUrl: base, customHosts: new Set([host]) })
          .api("/me/onenote/notebooks")
          .get(),
      ),
    };
  },
};

const name = process.argv[2];
if (!cases[name]) {
  console.error(`unknown case ${JSON.stringify(name)}; one of: ${Object.keys(cases).join(", ")}`);
  process.exit(2);
}
const result = await cases[name](newClient());
process.stdout.write(JSON.stringify(result));
