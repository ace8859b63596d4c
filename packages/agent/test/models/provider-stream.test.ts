import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Api, AssistantMessage, AssistantMessageEvent, Context, Model } from "@mariozechner/pi-ai";
import { loadEngine } from "../../src/models/engine.js";
import { openModelStream } from "../../src/models/provider-stream.js";
import type { ProviderStream } from "../../src/models/models-json.js";
import { noUsage as usage, ownModel as model } from "../support/own-model.js";

const { ai } = await loadEngine();

function message(text: string | undefined, extra: Partial<AssistantMessage> = {}): AssistantMessage {
  return {
    role: "assistant",
    content: text === undefined ? [] : [{ type: "text", text }],
    api: model.api,
    provider: "own",
    model: "m",
    usage,
    stopReason: "stop",
    timestamp: 1,
    ...extra,
  };
}

const context: Context = { messages: [{ role: "user", content: "hi", timestamp: 1 }] };

async function* opening(): AsyncGenerator<AssistantMessageEvent> {
  yield { type: "start", partial: message(undefined) };
  yield { type: "text_delta", contentIndex: 0, delta: "partial", partial: message("partial") };
}

async function drain(own: ProviderStream | undefined, options: { signal?: AbortSignal; model?: Model<Api> } = {}) {
  const stream = openModelStream(ai, own, options.model ?? model, context, { signal: options.signal });
  const types: string[] = [];
  for await (const event of stream) types.push(event.type);
  return { types, result: await stream.result() };
}

describe("a provider's own stream function", () => {
  test("its events pass through to the final one", async () => {
    const { types, result } = await drain(async function* () {
      yield* opening();
      yield { type: "done", reason: "stop", message: message("partial done") };
    });
    assert.deepEqual(types, ["start", "text_delta", "done"]);
    assert.deepEqual(result.content, [{ type: "text", text: "partial done" }]);
  });

  test("a throw at once is a failed reply carrying the error's text", async () => {
    const { types, result } = await drain(() => {
      throw new Error("refused at once");
    });
    assert.deepEqual(types, ["error"]);
    assert.deepEqual([result.stopReason, result.errorMessage, result.content], ["error", "refused at once", []]);
  });

  test("a throw midway is a failed reply that keeps what streamed", async () => {
    const { types, result } = await drain(async function* () {
      yield* opening();
      throw new Error("lost midway");
    });
    assert.deepEqual(types, ["start", "text_delta", "error"]);
    assert.deepEqual([result.stopReason, result.errorMessage, result.content], ["error", "lost midway", [{ type: "text", text: "partial" }]]);
  });

  test("a promise of a stream that rejects, and a stream that ends without a final event, are failed replies too", async () => {
    const rejected = await drain(() => Promise.reject(new Error("no stream for you")));
    assert.deepEqual([rejected.types, rejected.result.errorMessage], [["error"], "no stream for you"]);
    const unfinished = await drain(() => opening());
    assert.deepEqual(
      [unfinished.types, unfinished.result.errorMessage],
      [["start", "text_delta", "error"], "the provider's stream ended without a final message"],
    );
  });

  test("a throw after an interrupt is an interrupted reply, not an error", async () => {
    const controller = new AbortController();
    const { result } = await drain(
      async function* () {
        yield* opening();
        controller.abort();
        throw new Error("aborted by the caller");
      },
      { signal: controller.signal },
    );
    assert.equal(result.stopReason, "aborted");
  });

  test("failed and interrupted replies are left out of the context it gets", async () => {
    let given: Context | undefined;
    const withFailures: Context = {
      messages: [
        { role: "user", content: "one", timestamp: 1 },
        message(undefined, { stopReason: "error", errorMessage: "boom" }),
        { role: "user", content: "two", timestamp: 2 },
        message("half", { stopReason: "aborted" }),
        message("fine"),
        { role: "user", content: "three", timestamp: 3 },
      ],
    };
    const stream = openModelStream(
      ai,
      async function* (_model, ctx) {
        given = ctx;
        yield { type: "done", reason: "stop", message: message("ok") };
      },
      model,
      withFailures,
      {},
    );
    await stream.result();
    assert.deepEqual(
      given?.messages.map((m) => m.role + ":" + (typeof m.content === "string" ? m.content : m.content.map((c) => ("text" in c ? c.text : "")).join(""))),
      ["user:one", "user:two", "assistant:fine", "user:three"],
    );
  });
});

describe("pi-ai's own providers", () => {
  test("an API pi-ai does not speak, which makes it throw at once, is a failed reply", async () => {
    const { types, result } = await drain(undefined);
    assert.deepEqual(types, ["error"]);
    assert.equal(result.errorMessage, "No API provider registered for api: own-api");
  });
});
