import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** One streamed reply of the model, in the OpenAI chat-completions SSE shape. */
export interface ScriptedReply {
  /** Reasoning chunks, streamed first as `delta.reasoning_content`. */
  reasoning?: string | string[];
  /** Answer chunks, streamed as `delta.content`. */
  text?: string | string[];
  /** Tool calls, their JSON arguments streamed in `argumentChunks` pieces. */
  toolCalls?: { id?: string; name: string; arguments: unknown; argumentChunks?: number }[];
  /** Token usage reported in the last chunk; `false` sends none. */
  usage?: { input?: number; output?: number; cacheRead?: number } | false;
  finishReason?: "stop" | "length" | "tool_calls";
  /** Wait before the response head is sent. */
  firstByteDelayMs?: number;
  /** Wait between chunks. */
  chunkDelayMs?: number;
  /** After this many chunks, wait for `gate` (or forever when it is absent) before going on. */
  pauseAfter?: number;
  gate?: Promise<void>;
  /** After this many chunks, destroy the connection without ending the stream. */
  breakAfter?: number;
  /**
   * Writes the whole stream in pieces of this many bytes instead of an event
   * per write, as a network may hand it over: events, their blank lines and
   * UTF-8 characters cut anywhere, or many events in one piece (`Infinity`:
   * the whole stream in one write). The pacing options above do not apply.
   */
  wireBytes?: number;
  /** After the first event, one that never ends: bytes with no blank line, until the reader goes away. */
  unendingEvent?: boolean;
}

/** A plain HTTP error answer, such as 401, 429 or 500. */
export interface ScriptedError {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type ScriptedResponse = ScriptedReply | ScriptedError;
export type Responder = ScriptedResponse | ((request: RecordedRequest) => ScriptedResponse | Promise<ScriptedResponse>);

export interface RecordedRequest {
  index: number;
  path: string;
  headers: IncomingMessage["headers"];
  // biome-ignore lint/suspicious/noExplicitAny: a request body is whatever JSON the server sent, and tests reach into it
  body: Record<string, any>;
  receivedAt: number;
  /** When the first byte of the answer was written. */
  firstByteAt?: number;
  /** Set when the client closed the connection before the answer ended (an interrupt). */
  abortedAt?: number;
  finishedAt?: number;
}

function isError(response: ScriptedResponse): response is ScriptedError {
  return "status" in response;
}

function chunksOf(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

function splitInto(text: string, pieces: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / Math.max(1, pieces)));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length > 0 ? out : [""];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * An OpenAI-compatible model server on 127.0.0.1 that answers from a script:
 * text, reasoning, tool calls, usage, HTTP errors, streams that pause on a
 * gate, stall or break. It records every request so a test can check what
 * the agent sent (the prompt, tool results, a decline message).
 */
export class ScriptedModelServer {
  readonly requests: RecordedRequest[] = [];
  private readonly queue: Responder[] = [];
  private fallback: Responder = { status: 500, body: { error: { message: "no scripted response queued" } } };
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(): Promise<ScriptedModelServer> {
    let instance!: ScriptedModelServer;
    const server = createServer((request, response) => {
      instance.handle(request, response).catch((error: unknown) => {
        if (!response.headersSent) response.writeHead(500).end(String(error));
        else response.destroy();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    instance = new ScriptedModelServer(server, (server.address() as AddressInfo).port);
    server.on("connection", (socket) => {
      instance.sockets.add(socket);
      socket.on("close", () => instance.sockets.delete(socket));
    });
    return instance;
  }

  /** The base URL to configure as a provider's `baseUrl`. */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  /** Queues responses, answered in request order. */
  enqueue(...responses: Responder[]): this {
    this.queue.push(...responses);
    return this;
  }

  /** What to answer once the queue is empty (by default an HTTP 500 saying so). */
  setFallback(responder: Responder): this {
    this.fallback = responder;
    return this;
  }

  get pending(): number {
    return this.queue.length;
  }

  /** Resolves once at least `count` requests arrived. */
  async waitForRequests(count: number, timeoutMs = 10_000): Promise<RecordedRequest[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.requests.length < count) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${count} model requests (got ${this.requests.length})`);
      await sleep(5);
    }
    return this.requests;
  }

  /**
   * A `models.json` for the agent dir pointing a provider at this server.
   * `reasoning` models get thinking levels; the context window is small
   * enough for overflow tests to reach.
   */
  modelsJson(
    options: { provider?: string; models?: { id: string; reasoning?: boolean; contextWindow?: number; maxTokens?: number; input?: string[] }[] } = {},
  ): object {
    const models = options.models ?? [{ id: "scripted-model" }, { id: "scripted-reasoner", reasoning: true }];
    return {
      providers: {
        [options.provider ?? "scripted"]: {
          baseUrl: this.baseUrl,
          api: "openai-completions",
          apiKey: "test-key",
          models: models.map((m) => ({
            id: m.id,
            name: m.id,
            reasoning: m.reasoning ?? false,
            input: m.input ?? ["text", "image"],
            contextWindow: m.contextWindow ?? 128_000,
            maxTokens: m.maxTokens ?? 16_384,
            cost: { input: 1, output: 2, cacheRead: 0.1, cacheWrite: 0 },
          })),
        },
      },
    };
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const raw = await readBody(request);
    if (request.method === "GET" && request.url?.endsWith("/models")) {
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data: [] }));
      return;
    }
    const record: RecordedRequest = {
      index: this.requests.length,
      path: request.url ?? "",
      headers: request.headers,
      body: raw.length > 0 ? (JSON.parse(raw) as RecordedRequest["body"]) : {},
      receivedAt: Date.now(),
    };
    this.requests.push(record);
    response.on("close", () => {
      if (!response.writableFinished && record.abortedAt === undefined) record.abortedAt = Date.now();
    });
    const responder = this.queue.shift() ?? this.fallback;
    const scripted = typeof responder === "function" ? await responder(record) : responder;
    if (isError(scripted)) {
      record.firstByteAt = Date.now();
      const body = typeof scripted.body === "string" ? scripted.body : JSON.stringify(scripted.body ?? { error: { message: `HTTP ${scripted.status}` } });
      response.writeHead(scripted.status, { "content-type": "application/json", ...scripted.headers }).end(body);
      record.finishedAt = Date.now();
      return;
    }
    await this.stream(record, scripted, response);
  }

  private async stream(record: RecordedRequest, reply: ScriptedReply, response: ServerResponse): Promise<void> {
    if (reply.firstByteDelayMs) await sleep(reply.firstByteDelayMs);
    const model = String(record.body.model ?? "scripted-model");
    const id = `chatcmpl-${record.index}`;
    const events = buildEvents(reply, model, id);
    if (record.body.stream === false) {
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(assembleCompletion(reply, model, id)));
      record.firstByteAt = record.finishedAt = Date.now();
      return;
    }
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    record.firstByteAt = Date.now();
    if (reply.unendingEvent) {
      response.write(`${frame(events[0]!)}data: `);
      const filler = Buffer.alloc(1024 * 1024, "x");
      while (!response.destroyed) if (!response.write(filler)) await drained(response);
      record.finishedAt = Date.now();
      return;
    }
    if (reply.wireBytes !== undefined) {
      await writeInPieces(response, Buffer.from(events.map(frame).join("") + DONE), reply.wireBytes);
      record.finishedAt = Date.now();
      return;
    }
    let written: Promise<void> = Promise.resolve();
    for (let i = 0; i < events.length; i++) {
      if (response.destroyed) return;
      if (reply.breakAfter === i) {
        // Node corks a chunked response until the next tick: destroying the socket at once would drop the chunks before the cut.
        await written;
        response.socket?.destroy();
        return;
      }
      if (reply.pauseAfter === i) {
        if (reply.gate) await reply.gate;
        else await new Promise(() => undefined);
      }
      if (reply.chunkDelayMs && i > 0) await sleep(reply.chunkDelayMs);
      written = new Promise<void>((resolve) => response.write(frame(events[i]!), () => resolve()));
      // A reader slower than the script holds it back: a huge reply never sits whole in this process's memory.
      if (response.writableNeedDrain) await drained(response);
    }
    response.end(DONE);
    record.finishedAt = Date.now();
  }
}

/** One event of the stream, as the wire carries it. */
const frame = (event: object): string => `data: ${JSON.stringify(event)}\n\n`;
/** The stream's last line, after which nothing is sent. */
const DONE = "data: [DONE]\n\n";

/** Writes `bytes` in pieces of `size` bytes, each a write of its own, and ends the response. */
async function writeInPieces(response: ServerResponse, bytes: Buffer, size: number): Promise<void> {
  const step = Number.isFinite(size) ? Math.max(1, Math.floor(size)) : bytes.length;
  for (let at = 0; at < bytes.length && !response.destroyed; at += step) {
    // Each piece its own write, flushed before the next, so the reader's socket sees the cut.
    await new Promise<void>((resolve) => response.write(bytes.subarray(at, at + step), () => resolve()));
  }
  response.end();
}

/** Resolves once `response` can take more, or closed. */
function drained(response: ServerResponse): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      response.off("drain", done);
      response.off("close", done);
      resolve();
    };
    response.on("drain", done);
    response.on("close", done);
  });
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

function chunk(id: string, model: string, delta: Record<string, unknown>, finishReason: string | null = null): object {
  return { id, object: "chat.completion.chunk", created: 0, model, choices: [{ index: 0, delta, finish_reason: finishReason }] };
}

function buildEvents(reply: ScriptedReply, model: string, id: string): object[] {
  const events: object[] = [chunk(id, model, { role: "assistant", content: "" })];
  for (const piece of chunksOf(reply.reasoning)) events.push(chunk(id, model, { reasoning_content: piece }));
  for (const piece of chunksOf(reply.text)) events.push(chunk(id, model, { content: piece }));
  (reply.toolCalls ?? []).forEach((call, index) => {
    const args = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
    const callId = call.id ?? `call_${index}_${Math.random().toString(36).slice(2, 10)}`;
    splitInto(args, call.argumentChunks ?? 1).forEach((part, n) => {
      const fn = n === 0 ? { name: call.name, arguments: part } : { arguments: part };
      events.push(chunk(id, model, { tool_calls: [{ index, ...(n === 0 ? { id: callId, type: "function" } : {}), function: fn }] }));
    });
  });
  const finish = reply.finishReason ?? ((reply.toolCalls?.length ?? 0) > 0 ? "tool_calls" : "stop");
  events.push(chunk(id, model, {}, finish));
  if (reply.usage !== false) {
    const text = [...chunksOf(reply.reasoning), ...chunksOf(reply.text)].join("");
    const usage = reply.usage ?? {};
    const output = usage.output ?? Math.max(1, Math.ceil(text.length / 4));
    const input = usage.input ?? 100;
    events.push({
      id,
      object: "chat.completion.chunk",
      created: 0,
      model,
      choices: [],
      usage: {
        prompt_tokens: input,
        completion_tokens: output,
        total_tokens: input + output,
        prompt_tokens_details: { cached_tokens: usage.cacheRead ?? 0 },
      },
    });
  }
  return events;
}

function assembleCompletion(reply: ScriptedReply, model: string, id: string): object {
  const text = chunksOf(reply.text).join("");
  const toolCalls = (reply.toolCalls ?? []).map((call, index) => ({
    id: call.id ?? `call_${index}`,
    type: "function",
    function: { name: call.name, arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments) },
  }));
  return {
    id,
    object: "chat.completion",
    created: 0,
    model,
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: text, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) },
        finish_reason: reply.finishReason ?? (toolCalls.length > 0 ? "tool_calls" : "stop"),
      },
    ],
    usage: { prompt_tokens: 100, completion_tokens: Math.ceil(text.length / 4), total_tokens: 100 + Math.ceil(text.length / 4) },
  };
}
