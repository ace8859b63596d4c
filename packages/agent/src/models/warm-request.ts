import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Api, Model } from "@mariozechner/pi-ai";
import { loadEngine } from "./engine.js";
import { modelStreamOf, transportOf } from "./providers.js";

const WARM_UP_TIMEOUT_MS = 5_000;

/** Each event as the wire carries it, one frame apiece: the server writes them one by one, as a model does. */
const sse = (events: Array<Record<string, unknown>>, named = true) =>
  events.map((event) => `${named ? `event: ${String(event.type)}\n` : ""}data: ${JSON.stringify(event)}\n\n`);

const responsesMessage = {
  id: "msg_warm",
  type: "message",
  status: "completed",
  role: "assistant",
  content: [{ type: "output_text", text: "ok", annotations: [] }],
};
const responsesBase = { id: "resp_warm", object: "response", created_at: 0, model: "warm-up", output: [] };

/** A one-word reply in each wire format a canned answer is kept for; other APIs warm their transport alone. */
const CANNED: Partial<Record<Api, string[]>> = {
  "openai-responses": sse([
    { type: "response.created", sequence_number: 0, response: { ...responsesBase, status: "in_progress" } },
    { type: "response.output_item.added", sequence_number: 1, output_index: 0, item: { ...responsesMessage, status: "in_progress", content: [] } },
    {
      type: "response.content_part.added",
      sequence_number: 2,
      item_id: "msg_warm",
      output_index: 0,
      content_index: 0,
      part: { type: "output_text", text: "", annotations: [] },
    },
    { type: "response.output_text.delta", sequence_number: 3, item_id: "msg_warm", output_index: 0, content_index: 0, delta: "ok" },
    { type: "response.output_text.done", sequence_number: 4, item_id: "msg_warm", output_index: 0, content_index: 0, text: "ok" },
    { type: "response.content_part.done", sequence_number: 5, item_id: "msg_warm", output_index: 0, content_index: 0, part: responsesMessage.content[0] },
    { type: "response.output_item.done", sequence_number: 6, output_index: 0, item: responsesMessage },
    {
      type: "response.completed",
      sequence_number: 7,
      response: { ...responsesBase, status: "completed", output: [responsesMessage], usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 } },
    },
  ]),
  "openai-completions": [
    ...sse(
      [
        {
          id: "warm",
          object: "chat.completion.chunk",
          created: 0,
          model: "warm-up",
          choices: [{ index: 0, delta: { role: "assistant", content: "ok" }, finish_reason: null }],
        },
        {
          id: "warm",
          object: "chat.completion.chunk",
          created: 0,
          model: "warm-up",
          choices: [{ index: 0, delta: {}, finish_reason: "stop" }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        },
      ],
      false,
    ),
    "data: [DONE]\n\n",
  ],
  "anthropic-messages": sse([
    {
      type: "message_start",
      message: {
        id: "msg_warm",
        type: "message",
        role: "assistant",
        model: "warm-up",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      },
    },
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "ok" } },
    { type: "content_block_stop", index: 0 },
    { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 1 } },
    { type: "message_stop" },
  ]),
};

/** What the warm-up request went through: the model's provider and SDK, or only the transport its SDK uses. */
export type WarmedPath = { through: "provider"; outcome: string } | { through: "fetch" | "modelFetch" };

/**
 * Makes one streamed request to a server of our own on 127.0.0.1, so that
 * the first real model request does not pay for what runs only once:
 * loading its transport (Node's HTTP client for our `modelFetch`, undici
 * and its HTTP parser for the global `fetch`) and, where a canned
 * reply in the model's wire format is kept, running the provider's SDK and
 * pi-ai's stream handling for the first time. Together they put tens of
 * milliseconds between a model's first bytes and the first delta a client
 * sees. The request goes to a copy of the model pointed at our server,
 * under a neutral provider name and a dummy key; nothing leaves the
 * machine. Where no loopback socket can be opened, it throws and the first
 * request pays, as it would have.
 */
export async function warmRequest(model?: Model<Api>): Promise<WarmedPath> {
  // Loaded here, not with the module: a host that never warms up never loads it.
  const { createServer } = await import("node:http");
  const canned = model === undefined ? undefined : CANNED[model.api];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    request.resume();
    request.on("end", () => {
      response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      // Event by event, each its own HTTP chunk, as a model writes them: the reading of a reply in many small pieces warms too.
      for (const frame of canned ?? sse([{ type: "ping" }])) response.write(frame);
      response.end();
    });
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const signal = AbortSignal.timeout(WARM_UP_TIMEOUT_MS);
    if (model !== undefined && canned !== undefined) {
      const { ai } = await loadEngine();
      const copy: Model<Api> = { ...model, provider: "knightcode-warm-up", baseUrl: model.api === "anthropic-messages" ? origin : `${origin}/v1`, headers: {} };
      const context = { systemPrompt: "", messages: [{ role: "user" as const, content: "warm-up", timestamp: Date.now() }] };
      let outcome = "none";
      for await (const event of modelStreamOf(ai, copy.api)(copy, context, { apiKey: "warm-up", signal, maxRetries: 0 })) outcome = event.type;
      return { through: "provider", outcome };
    }
    const through = model !== undefined && transportOf(model.api) === "modelFetch" ? "modelFetch" : "fetch";
    const send = through === "modelFetch" ? (await import("./http-fetch.js")).modelFetch : fetch;
    const response = await send(`${origin}/warm-up`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}", signal });
    const reader = response.body?.getReader();
    if (reader) while (!(await reader.read()).done);
    return { through };
  } finally {
    server.closeAllConnections();
    server.close();
  }
}
