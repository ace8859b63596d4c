import assert from "node:assert/strict";
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { type TestServer, startServer } from "../support/harness.js";

/**
 * Model requests of the OpenAI and Anthropic SDKs go through our own
 * transport on node:http in the bundle (agent/src/models/http-fetch.ts, put
 * in place by scripts/lib/sdk-http.mjs), never through undici: here, through
 * the real binary, a turn on a model of each wire format answers word for
 * word, a refused request fails its turn with the server's own words, and a
 * preloaded watch (test/fixtures/undici-watch.mjs) sees no global of
 * undici's touched, the warm-up's requests included.
 */

const REPLY = ["Über ", "naïve ", "漢字 ", "🙂 done"];

interface Asked {
  path: string;
  headers: IncomingHttpHeaders;
  body: { model?: string; stream?: boolean; input?: unknown; messages?: unknown };
}

const sse = (events: Array<Record<string, unknown>>) => events.map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`).join("");

function responsesReply(text: string[]): string {
  const item = {
    id: "msg_1",
    type: "message",
    status: "completed",
    role: "assistant",
    content: [{ type: "output_text", text: text.join(""), annotations: [] }],
  };
  const base = { id: "resp_1", object: "response", created_at: 0, model: "wire-model", output: [] };
  const at = { item_id: "msg_1", output_index: 0, content_index: 0 };
  return sse([
    { type: "response.created", sequence_number: 0, response: { ...base, status: "in_progress" } },
    { type: "response.output_item.added", sequence_number: 1, output_index: 0, item: { ...item, status: "in_progress", content: [] } },
    { type: "response.content_part.added", sequence_number: 2, ...at, part: { type: "output_text", text: "", annotations: [] } },
    ...text.map((delta, i) => ({ type: "response.output_text.delta", sequence_number: 3 + i, ...at, delta })),
    { type: "response.output_text.done", sequence_number: 10, ...at, text: text.join("") },
    { type: "response.content_part.done", sequence_number: 11, ...at, part: item.content[0] },
    { type: "response.output_item.done", sequence_number: 12, output_index: 0, item },
    {
      type: "response.completed",
      sequence_number: 13,
      response: { ...base, status: "completed", output: [item], usage: { input_tokens: 5, output_tokens: 4, total_tokens: 9 } },
    },
  ]);
}

function anthropicReply(text: string[]): string {
  const message = { id: "msg_1", type: "message", role: "assistant", model: "wire-claude", content: [], stop_reason: null, stop_sequence: null };
  return sse([
    { type: "message_start", message: { ...message, usage: { input_tokens: 5, output_tokens: 1 } } },
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    ...text.map((piece) => ({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: piece } })),
    { type: "content_block_stop", index: 0 },
    { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 4 } },
    { type: "message_stop" },
  ]);
}

let wire: Server;
let origin: string;
const asked: Asked[] = [];
let server: TestServer;
let cwd: string;

/** Answers a request in its wire format; "refuse" in the prompt gets a 400 with the server's reason. */
function answer(path: string, body: Asked["body"], response: ServerResponse): void {
  if (JSON.stringify(body).includes("refuse me")) {
    response.writeHead(400, { "content-type": "application/json" });
    response.end(JSON.stringify({ error: { message: "the wire server refused this request", type: "invalid_request_error" } }));
    return;
  }
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  // Written in pieces, as a model streams.
  const text = path.endsWith("/messages") ? anthropicReply(REPLY) : responsesReply(REPLY);
  const cut = Math.floor(text.length / 3);
  response.write(text.slice(0, cut));
  setImmediate(() => response.end(text.slice(cut)));
}

before(async () => {
  wire = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = chunks.length > 0 ? (JSON.parse(Buffer.concat(chunks).toString()) as Asked["body"]) : {};
      asked.push({ path: request.url ?? "", headers: request.headers, body });
      answer(request.url ?? "", body, response);
    });
  });
  await new Promise<void>((resolve) => wire.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(wire.address() as AddressInfo).port}`;
  const model = (id: string) => ({ id, name: id, reasoning: false, input: ["text"], contextWindow: 128_000, maxTokens: 4_096 });
  const watch = fileURLToPath(new URL("../../../test/fixtures/undici-watch.mjs", import.meta.url));
  server = await startServer({
    modelsJson: {
      providers: {
        responses: { baseUrl: `${origin}/v1`, api: "openai-responses", apiKey: "responses-key", models: [model("wire-model")] },
        claude: { baseUrl: origin, api: "anthropic-messages", apiKey: "anthropic-key", models: [model("wire-claude")] },
      },
    },
    env: { NODE_OPTIONS: `--import=${watch}` },
  });
  cwd = server.project({ "README.md": "# transport\n" });
  await server.waitForStderr(/undici-watch: watching/);
});
after(async () => {
  await server.close();
  wire.closeAllConnections();
  wire.close();
});

/** One turn on `provider`'s model; its status, its deltas joined and its error's message. */
async function turnOn(provider: string, id: string, text: string): Promise<{ status: string; streamed: string; error: string | undefined }> {
  const { thread } = await server.main.request("thread/start", { cwd, model: { provider, id } });
  const mark = server.main.notifications.length;
  await server.main.request("turn/start", { threadId: thread.id, text });
  const { turn } = await server.main.waitForNotification("turn/started", (p) => p.threadId === thread.id, { since: mark });
  const completed = await server.main.waitForNotification("turn/completed", (p) => p.turn.id === turn.id, { since: mark, timeoutMs: 60_000 });
  const streamed = server.main
    .notificationsOf("item/agentMessage/delta")
    .filter((p) => p.turnId === turn.id)
    .map((p) => p.delta)
    .join("");
  return { status: completed.turn.status, streamed, error: completed.turn.error?.message };
}

describe("model requests through our transport", () => {
  test("an OpenAI Responses model: the reply word for word, the key as a bearer token", async () => {
    const { status, streamed } = await turnOn("responses", "wire-model", "say it");
    assert.equal(status, "completed");
    assert.equal(streamed, REPLY.join(""));
    const request = asked.findLast((entry) => entry.path === "/v1/responses" && entry.body.model === "wire-model");
    assert.ok(request);
    assert.equal(request.headers.authorization, "Bearer responses-key");
    assert.equal(request.body.stream, true);
  });

  test("an Anthropic model: the reply word for word, the key in x-api-key", async () => {
    const { status, streamed } = await turnOn("claude", "wire-claude", "say it");
    assert.equal(status, "completed");
    assert.equal(streamed, REPLY.join(""));
    const request = asked.findLast((entry) => entry.path === "/v1/messages" && entry.body.model === "wire-claude");
    assert.ok(request);
    assert.equal(request.headers["x-api-key"], "anthropic-key");
    assert.equal(request.body.stream, true);
  });

  test("a request the model's server refuses fails the turn with the server's own words", async () => {
    const { status, error } = await turnOn("responses", "wire-model", "refuse me");
    assert.equal(status, "failed");
    assert.match(error ?? "", /the wire server refused this request/);
  });

  test("nothing touched undici: no global fetch, Headers, Request, Response or FormData", () => {
    assert.doesNotMatch(server.stderr, /undici-watch: \w+ touched/);
    server.main.assertNoSchemaViolations();
  });
});
