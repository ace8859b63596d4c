import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { createWebSearchTool } from "../../src/tools/websearch.js";
import { rejectsWith, textOf } from "./support.js";

const BRAVE_KEY = "BSA-unit-secret-key-7f3a";
const TAVILY_KEY = "tvly-unit-secret-key-91bc";

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

/** A search provider on 127.0.0.1: answers what `reply` says and records every request. */
let server: Server;
let baseUrl: string;
const seen: Seen[] = [];
let reply: (request: Seen) => { status: number; body: string } = () => ({ status: 500, body: "" });

before(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const request = { method: req.method!, url: req.url!, headers: req.headers, body };
      seen.push(request);
      const { status, body: text } = reply(request);
      res.writeHead(status, { "content-type": "application/json" }).end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** A port nothing listens on: one the system just handed out and took back. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

const root = mkdtempSync(join(tmpdir(), "kc-websearch-"));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

/** An agent dir whose tools.json configures websearch with `settings`. */
function agentDir(settings: Record<string, unknown> | string): string {
  const dir = join(root, `agent-${n++}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "tools.json"), typeof settings === "string" ? settings : JSON.stringify({ tools: { websearch: { enabled: true, ...settings } } }));
  return dir;
}

const braveAnswer = JSON.stringify({
  web: {
    results: [
      { title: "Node.js <strong>streams</strong>", url: "https://nodejs.org/api/stream.html", description: "A stream is an abstract interface &amp; more." },
      { title: "Second", url: "https://example.org/2", description: "x".repeat(2000) },
      { title: "", url: "https://example.org/3" },
      { nothing: "without a url" },
    ],
  },
});

describe("websearch", () => {
  test("brave: the query and count go in the URL, the key only in its header; results are title, URL and a bounded snippet", async () => {
    reply = () => ({ status: 200, body: braveAnswer });
    const start = seen.length;
    const tool = createWebSearchTool({ agentDir: agentDir({ provider: "brave", braveKey: BRAVE_KEY, baseUrl }) });
    const result = await tool.execute("c1", { query: "node streams", count: 3 });
    const [request] = seen.slice(start);
    assert.equal(request!.method, "GET");
    assert.equal(request!.url, "/res/v1/web/search?q=node+streams&count=3");
    assert.equal(request!.headers["x-subscription-token"], BRAVE_KEY);
    const text = textOf(result);
    assert.match(text, /^1\. Node\.js streams\n {3}https:\/\/nodejs\.org\/api\/stream\.html\n {3}A stream is an abstract interface & more\.\n\n2\. Second\n/);
    assert.match(text, /\n3\. https:\/\/example\.org\/3\n {3}https:\/\/example\.org\/3$/, "a result without a title shows its URL");
    assert.ok(text.length < 1000, "a long snippet is cut");
    assert.deepEqual(result.details, { provider: "brave", count: 3 });
  });

  test("tavily: a POST with the key as a bearer token, never in the body", async () => {
    reply = () => ({ status: 200, body: JSON.stringify({ results: [{ title: "T", url: "https://t.example", content: "Snippet" }] }) });
    const start = seen.length;
    const tool = createWebSearchTool({ agentDir: agentDir({ provider: "tavily", tavilyKey: TAVILY_KEY, baseUrl: `${baseUrl}/` }) });
    const result = await tool.execute("c2", { query: "q" });
    const [request] = seen.slice(start);
    assert.equal(request!.method, "POST");
    assert.equal(request!.url, "/search");
    assert.equal(request!.headers.authorization, `Bearer ${TAVILY_KEY}`);
    assert.deepEqual(JSON.parse(request!.body), { query: "q", max_results: 5, search_depth: "basic" });
    assert.equal(textOf(result), "1. T\n   https://t.example\n   Snippet");
  });

  test("without a key it says how to set one and makes no request", async () => {
    const start = seen.length;
    const missing = await rejectsWith(createWebSearchTool({ agentDir: agentDir({ baseUrl }) }).execute("c3", { query: "q" }), "notAvailable");
    assert.equal(
      missing.message,
      'websearch has no API key for brave; set it with tool/settings/write {"name": "websearch", "key": "braveKey", "value": "<your key>"}. No search was made.',
    );
    // The key of the other provider does not count.
    await rejectsWith(
      createWebSearchTool({ agentDir: agentDir({ provider: "tavily", braveKey: BRAVE_KEY, baseUrl }) }).execute("c4", { query: "q" }),
      "notAvailable",
      /no API key for tavily/,
    );
    await rejectsWith(createWebSearchTool({ agentDir: agentDir('{"tools": ') }).execute("c5", { query: "q" }), "notAvailable", /not a valid tools\.json/);
    assert.equal(seen.length, start);
  });

  test("the key is cut out of what the provider or the network says back", async () => {
    reply = (request) => ({ status: 401, body: JSON.stringify({ error: `invalid token ${request.headers["x-subscription-token"]}` }) });
    const denied = await rejectsWith(
      createWebSearchTool({ agentDir: agentDir({ braveKey: BRAVE_KEY, baseUrl }) }).execute("c6", { query: "q" }),
      "commandFailed",
    );
    assert.match(denied.message, /brave answered HTTP 401: .*invalid token ••••.*Check websearch's braveKey\./);
    assert.ok(!denied.message.includes(BRAVE_KEY));

    reply = (request) => ({
      status: 200,
      body: JSON.stringify({ web: { results: [{ title: `echo ${request.headers["x-subscription-token"]}`, url: "https://e.example" }] } }),
    });
    const echoed = await createWebSearchTool({ agentDir: agentDir({ braveKey: BRAVE_KEY, baseUrl }) }).execute("c7", { query: "q" });
    assert.ok(!textOf(echoed).includes(BRAVE_KEY));

    const closed = `http://127.0.0.1:${await closedPort()}/${BRAVE_KEY}`;
    const unreachable = await rejectsWith(
      createWebSearchTool({ agentDir: agentDir({ braveKey: BRAVE_KEY, baseUrl: closed }) }).execute("c8", { query: "q" }),
      "commandFailed",
    );
    assert.match(unreachable.message, /could not reach 127\.0\.0\.1/);
    assert.ok(!unreachable.message.includes(BRAVE_KEY));
  });

  test("an answer that is not JSON, or not in the provider's shape, is a tool error; no results is said plainly", async () => {
    const dir = agentDir({ braveKey: BRAVE_KEY, baseUrl });
    reply = () => ({ status: 200, body: "<html>" });
    await rejectsWith(createWebSearchTool({ agentDir: dir }).execute("c9", { query: "q" }), "commandFailed", /other than JSON/);
    reply = () => ({ status: 200, body: JSON.stringify({ web: { results: "none" } }) });
    await rejectsWith(createWebSearchTool({ agentDir: dir }).execute("c10", { query: "q" }), "commandFailed", /shape/);
    reply = () => ({ status: 200, body: JSON.stringify({ web: { results: [] } }) });
    assert.equal(textOf(await createWebSearchTool({ agentDir: dir }).execute("c11", { query: "nothing here" })), 'No results for "nothing here".');
  });
});
