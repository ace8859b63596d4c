import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Type } from "typebox";
import type { AgentTool } from "@mariozechner/pi-agent-core";
import { ModelError } from "../../src/models/errors.js";
import { TurnInProgressError } from "../../src/run/session-options.js";
import { eventTypes, runEnv, type RunEnv } from "../support/env.js";
import { waitUntil } from "@knightcode/testkit";

let env: RunEnv;
before(async () => {
  env = await runEnv();
});
after(() => env.close());

function echoTool(log: string[] = []): AgentTool {
  return {
    name: "echo",
    label: "Echo",
    description: "Echoes its text",
    parameters: Type.Object({ text: Type.String() }),
    execute: async (_id, raw, signal) => {
      const params = raw as { text: string };
      log.push(params.text);
      if (params.text === "slow") {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(resolve, 10_000);
          signal?.addEventListener("abort", () => {
            clearTimeout(timer);
            reject(new Error("aborted"));
          });
        });
      }
      return { content: [{ type: "text", text: `echo: ${params.text}` }], details: { length: params.text.length } };
    },
  };
}

function lastUserText(body: Record<string, any>): string {
  const users = (body.messages as { role: string; content: unknown }[]).filter((m) => m.role === "user");
  const content = users.at(-1)?.content;
  return typeof content === "string" ? content : (content as { type: string; text?: string }[]).map((c) => c.text ?? "").join("");
}

describe("a plain text turn", () => {
  test("streams, persists durable start and end markers and reports usage", async () => {
    const { session, transcript, events } = await env.session();
    env.model.enqueue({ text: ["Hel", "lo"], usage: { input: 40, output: 2 } });
    const result = await session.runTurn({ text: "say hello" });
    assert.equal(result.status, "completed");
    assert.deepEqual(eventTypes(events), [
      "turn_start",
      "message_start:user",
      "message_end:user",
      "message_start:assistant",
      "message_update",
      "message_update",
      "message_update",
      "message_update",
      "message_end:assistant",
      "usage",
      "turn_end",
    ]);
    assert.deepEqual(
      transcript.branch().map((e) => e.type),
      ["turn_start", "message", "message", "turn_end"],
    );
    assert.equal(transcript.file.isOwned(), true);
    const [start] = transcript.ofType("turn_start");
    const [end] = transcript.ofType("turn_end");
    assert.equal(result.turnId, start!.id);
    assert.equal(end!.turnId, start!.id);
    assert.equal(end!.status, "completed");
    assert.deepEqual(
      { input: session.usage.input, output: session.usage.output, contextTokens: session.usage.contextTokens },
      { input: 40, output: 2, contextTokens: 42 },
    );
    assert.equal(session.usage.contextWindow, 128_000);
    assert.ok(session.usage.cost > 0);
    assert.equal(lastUserText(env.model.requests.at(-1)!.body), "say hello");
    assert.equal(env.model.requests.at(-1)!.body.messages[0].content, "You are a test agent.");
  });

  test("reasoning streams as thinking before the text", async () => {
    const { session, events } = await env.session({ defaultModel: { provider: "scripted", id: "scripted-reasoner" } });
    env.model.enqueue({ reasoning: ["hmm ", "ok"], text: "done" });
    await session.runTurn({ text: "think" });
    const kinds = events.flatMap((e) => (e.type === "message_update" ? [e.event.type] : []));
    assert.ok(kinds.indexOf("thinking_delta") < kinds.indexOf("text_delta"));
    const final = events.find((e) => e.type === "message_end" && e.message.role === "assistant");
    assert.ok(final && final.type === "message_end" && final.message.role === "assistant");
    assert.deepEqual(
      final.message.content.map((c) => c.type),
      ["thinking", "text"],
    );
  });

  test("a second start while one runs is refused", async () => {
    const { session } = await env.session();
    let release!: () => void;
    env.model.enqueue({ text: ["a", "b"], pauseAfter: 1, gate: new Promise<void>((r) => (release = r)) });
    const running = session.runTurn({ text: "one" });
    await env.model.waitForRequests(env.model.requests.length + 1);
    await assert.rejects(session.runTurn({ text: "two" }), TurnInProgressError);
    release();
    assert.equal((await running).status, "completed");
  });
});

describe("tools", () => {
  test("a tool call runs, its result is persisted and sent back to the model", async () => {
    const log: string[] = [];
    const { session, transcript, events } = await env.session({ tools: [echoTool(log)] });
    env.model.enqueue({ toolCalls: [{ id: "call_1", name: "echo", arguments: { text: "hi" }, argumentChunks: 3 }] }, { text: "all done" });
    const before = env.model.requests.length;
    const result = await session.runTurn({ text: "use the tool" });
    assert.equal(result.status, "completed");
    assert.deepEqual(log, ["hi"]);
    const toolEnd = events.find((e) => e.type === "tool_end");
    assert.ok(toolEnd && toolEnd.type === "tool_end" && toolEnd.toolCallId === "call_1" && !toolEnd.isError);
    const roles = transcript.ofType("message").map((e) => (e.message as { role: string }).role);
    assert.deepEqual(roles, ["user", "assistant", "toolResult", "assistant"]);
    const second = env.model.requests[before + 1]!.body.messages as { role: string; content: string; tool_call_id?: string }[];
    const toolMessage = second.find((m) => m.role === "tool");
    assert.equal(toolMessage?.tool_call_id, "call_1");
    assert.match(JSON.stringify(toolMessage?.content), /echo: hi/);
  });

  test("a blocked call never runs and its reason reaches the model", async () => {
    const log: string[] = [];
    const { session } = await env.session({
      tools: [echoTool(log)],
      beforeToolCall: async () => ({ block: true, reason: "Declined by the user: use the project-local file instead" }),
    });
    env.model.enqueue({ toolCalls: [{ id: "call_2", name: "echo", arguments: { text: "nope" } }] }, { text: "ok" });
    const before = env.model.requests.length;
    await session.runTurn({ text: "try" });
    assert.deepEqual(log, []);
    assert.match(JSON.stringify(env.model.requests[before + 1]!.body.messages), /use the project-local file instead/);
  });
});

describe("errors and retries", () => {
  test("401 fails the turn as auth, without retrying", async () => {
    const { session, transcript, events } = await env.session();
    const before = env.model.requests.length;
    env.model.enqueue({ status: 401, body: { error: { message: "Invalid API key" } } });
    const result = await session.runTurn({ text: "x" });
    assert.equal(result.status, "failed");
    assert.equal(result.error?.kind, "auth");
    assert.equal(env.model.requests.length, before + 1);
    assert.equal(events.filter((e) => e.type === "retry").length, 0);
    const [end] = transcript.ofType("turn_end");
    assert.deepEqual(end!.error, result.error);
  });

  test("429 and 500 are retried with backoff inside the same turn", async () => {
    const { session, transcript, events } = await env.session();
    env.model.enqueue({ status: 429, body: { error: { message: "Rate limit reached" } } }, { status: 500, body: "upstream down" }, { text: "finally" });
    const result = await session.runTurn({ text: "x" });
    assert.equal(result.status, "completed");
    const retries = events.filter((e) => e.type === "retry");
    assert.deepEqual(
      retries.map((e) => e.type === "retry" && [e.attempt, e.error.kind]),
      [
        [1, "rateLimit"],
        [2, "provider"],
      ],
    );
    assert.equal(transcript.ofType("turn_start").length, 1);
    assert.equal(transcript.ofType("turn_end").length, 1);
  });

  test("a transient error that outlasts the retries fails the turn", async () => {
    const { session } = await env.session();
    for (let i = 0; i < 4; i++) env.model.enqueue({ status: 503, body: "Service Unavailable" });
    const result = await session.runTurn({ text: "x" });
    assert.equal(result.status, "failed");
    assert.equal(result.error?.kind, "provider");
  });

  test("a broken stream is a network error and is retried", async () => {
    const { session, events } = await env.session();
    env.model.enqueue({ text: ["a", "b", "c"], breakAfter: 2 }, { text: "whole" });
    const result = await session.runTurn({ text: "x" });
    assert.equal(result.status, "completed");
    assert.equal(
      events.find((e) => e.type === "retry")?.type === "retry" && (events.find((e) => e.type === "retry") as { error: { kind: string } }).error.kind,
      "network",
    );
  });

  test("a stream broken on every attempt fails the turn with a message saying what broke and what to do", async () => {
    const { session, transcript } = await env.session();
    const before = env.model.requests.length;
    const attempts = session.settings.retry.maxRetries + 1;
    for (let i = 0; i < attempts; i++) env.model.enqueue({ text: ["a", "b", "c"], breakAfter: 2 });
    const result = await session.runTurn({ text: "x" });
    assert.equal(result.status, "failed");
    assert.equal(env.model.requests.length, before + attempts);
    assert.equal(result.error?.kind, "network");
    assert.match(
      result.error!.message,
      new RegExp(`^Lost the connection to the model provider at http://127\\.0\\.0\\.1:\\d+/v1, on all ${attempts} attempts \\(.+\\)\\. Check the network`),
    );
    assert.deepEqual(transcript.ofType("turn_end")[0]!.error, result.error);
  });

  test("a stalled stream fails after the idle timeout and is retried", async () => {
    const { session, events } = await env.session({ settings: { streamIdleTimeoutMs: 300 } });
    const before = env.model.requests.length;
    env.model.enqueue({ text: ["a", "b"], pauseAfter: 1 }, { text: "recovered" });
    const started = Date.now();
    const result = await session.runTurn({ text: "x" });
    assert.equal(result.status, "completed");
    assert.ok(Date.now() - started >= 280);
    const retry = events.find((e) => e.type === "retry");
    assert.ok(retry && retry.type === "retry");
    assert.match(retry.error.message, /stalled: no data for 0\.3 s$/);
    assert.ok(env.model.requests[before]!.abortedAt, "the stalled request was aborted");
  });

  test("a reply past the limit is cut off: the turn fails saying so, is not retried, and nothing of the reply is kept or sent again", async () => {
    const { session, transcript, events } = await env.session({ settings: { maxReplyBytes: 1000 } });
    const before = env.model.requests.length;
    env.model.enqueue({ text: new Array<string>(50).fill("x".repeat(100)) }, { text: "short" });
    const result = await session.runTurn({ text: "x" });
    assert.equal(result.status, "failed");
    assert.equal(result.error?.kind, "other");
    assert.match(result.error!.message, /^The model's reply was too long: it passed 1000 bytes, so it was cut off/);
    assert.equal(env.model.requests.length, before + 1, "not retried");
    assert.equal(
      events.some((e) => e.type === "retry"),
      false,
    );
    const reply = transcript
      .ofType("message")
      .map((e) => e.message as { role: string; stopReason?: string; content: unknown[] })
      .find((m) => m.role === "assistant");
    assert.equal(reply?.stopReason, "error");
    assert.deepEqual(reply?.content, [], "the transcript keeps the failure, not the text");
    const next = await session.runTurn({ text: "again" });
    assert.equal(next.status, "completed");
    assert.doesNotMatch(JSON.stringify(env.model.requests.at(-1)!.body.messages), /xxxxxxxxxx/);
  });
});

describe("interrupts", () => {
  test("aborting a streaming reply ends the turn interrupted and cancels the request", async () => {
    const { session, transcript, events } = await env.session();
    const before = env.model.requests.length;
    env.model.enqueue({ text: ["partial", " more"], pauseAfter: 2 });
    const running = session.runTurn({ text: "x" });
    await waitUntil("the reply to stream", () => events.some((e) => e.type === "message_update" && e.event.type === "text_delta"));
    session.abort();
    const result = await running;
    assert.equal(result.status, "interrupted");
    const [end] = transcript.ofType("turn_end");
    assert.equal(end!.status, "interrupted");
    await waitUntil("the model to see the request closed", () => env.model.requests[before]!.abortedAt);
  });

  test("aborting during a retry wait ends the turn at once", async () => {
    const { session, events } = await env.session({ settings: { retry: { enabled: true, maxRetries: 3, baseDelayMs: 20_000, maxRetryDelayMs: 20_000 } } });
    env.model.enqueue({ status: 429, body: "slow down" });
    const running = session.runTurn({ text: "x" });
    await waitUntil("the retry wait to begin", () => events.some((e) => e.type === "retry"));
    const started = Date.now();
    session.abort();
    const result = await running;
    assert.equal(result.status, "interrupted");
    assert.ok(Date.now() - started < 1000);
  });

  test("aborting a running tool stops it", async () => {
    const { session, events } = await env.session({ tools: [echoTool()] });
    env.model.enqueue({ toolCalls: [{ name: "echo", arguments: { text: "slow" } }] });
    const running = session.runTurn({ text: "x" });
    await waitUntil("the tool to start", () => events.some((e) => e.type === "tool_start"));
    const started = Date.now();
    session.abort();
    assert.equal((await running).status, "interrupted");
    assert.ok(Date.now() - started < 1000);
  });
});

describe("steering", () => {
  test("a steer given while a tool runs reaches the model in the same turn", async () => {
    const own = await runEnv();
    const { session, transcript, events } = await own.session({ tools: [echoTool()] });
    let release!: () => void;
    const before = 0;
    // Depending on when the steer lands it rides the second request or causes a third; both are this turn.
    own.model.setFallback({ text: "noted the steer" });
    own.model.enqueue(
      { toolCalls: [{ name: "echo", arguments: { text: "hi" } }] },
      { text: ["ok", " steered"], pauseAfter: 0, gate: new Promise<void>((r) => (release = r)) },
    );
    const running = session.runTurn({ text: "start" });
    await waitUntil("the tool to end", () => events.some((e) => e.type === "tool_end"));
    assert.equal(session.steer("also check the tests"), true);
    assert.deepEqual(session.steers.pending(), ["also check the tests"]);
    release();
    const result = await running;
    assert.equal(result.status, "completed", JSON.stringify(result.error));
    assert.deepEqual(session.steers.pending(), []);
    const bodies = own.model.requests.slice(before).map((r) => JSON.stringify(r.body.messages));
    assert.ok(
      bodies.some((b) => b.includes("also check the tests")),
      "the steer reached a request of this turn",
    );
    assert.equal(transcript.ofType("turn_start").length, 1);
    const users = transcript.ofType("message").filter((e) => (e.message as { role: string }).role === "user");
    assert.equal(users.length, 2);
    await own.close();
  });

  test("a follow-up waits until the agent would stop, then runs in the same turn", async () => {
    const own = await runEnv();
    try {
      const { session, transcript } = await own.session();
      let release!: () => void;
      own.model.enqueue({ text: ["first"], pauseAfter: 1, gate: new Promise<void>((r) => (release = r)) }, { text: "second" });
      const running = session.runTurn({ text: "go" });
      await own.model.waitForRequests(1);
      assert.equal(session.followUp("and then this"), true);
      release();
      assert.equal((await running).status, "completed");
      assert.equal(own.model.requests.length, 2);
      assert.match(JSON.stringify(own.model.requests[1]!.body.messages), /and then this/);
      assert.equal(transcript.ofType("turn_start").length, 1);
    } finally {
      await own.close();
    }
  });

  test("without a running turn there is nothing to steer", async () => {
    const { session } = await env.session();
    assert.equal(session.steer("late"), false);
  });
});

describe("compaction", () => {
  test("a context overflow compacts and continues in the same turn", async (t) => {
    const env = await runEnv();
    t.after(() => env.close());
    const { session, transcript, events } = await env.session();
    env.model.enqueue({ text: "first answer" }, { text: "second answer" });
    await session.runTurn({ text: "one" });
    await session.runTurn({ text: "two" });
    env.model.enqueue(
      { status: 400, body: { error: { message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens." } } },
      { text: "## Goal\nsummary text" },
      { text: "after compaction" },
    );
    const result = await session.runTurn({ text: "three" });
    assert.equal(result.status, "completed", JSON.stringify([result.error, events.filter((e) => e.type.startsWith("compaction"))]));
    assert.deepEqual(
      events.filter((e) => e.type.startsWith("compaction")).map((e) => (e.type === "compaction_start" ? e.reason : e.type)),
      ["overflow", "compaction_end"],
    );
    const [compaction] = transcript.ofType("compaction");
    assert.equal(compaction!.summary, "## Goal\nsummary text");
    const last = JSON.stringify(env.model.requests.at(-1)!.body.messages);
    assert.match(last, /summary text/);
    assert.match(last, /three/);
  });

  test("a context near the window is compacted before the next run", async () => {
    const small = await runEnv({ models: [{ id: "tiny", contextWindow: 4_000 }] });
    try {
      const { session, events } = await small.session({ settings: { compaction: { enabled: true, reserveTokens: 1_000, keepRecentTokens: 10 } } });
      small.model.enqueue({ text: "a", usage: { input: 3_500, output: 10 } }, { text: "summary of it" }, { text: "fresh" });
      await session.runTurn({ text: "fill the context" });
      assert.equal(session.usage.contextTokens, 3_510);
      await session.runTurn({ text: "next" });
      const start = events.find((e) => e.type === "compaction_start");
      assert.ok(start && start.type === "compaction_start" && start.reason === "threshold");
      assert.match(JSON.stringify(small.model.requests.at(-1)!.body.messages), /summary of it/);
    } finally {
      await small.close();
    }
  });

  test("manual compaction between turns, and nothing to compact on an empty thread", async (t) => {
    const env = await runEnv();
    t.after(() => env.close());
    const { session, transcript } = await env.session();
    assert.deepEqual(await session.compact(), { ok: false, error: "there is nothing to compact yet", aborted: false });
    env.model.enqueue({ text: "one" }, { text: "two" }, { text: "the summary" });
    await session.runTurn({ text: "q1" });
    await session.runTurn({ text: "q2" });
    const result = await session.compact();
    assert.ok(result.ok && result.summary === "the summary");
    assert.equal(transcript.ofType("compaction").length, 1);
  });

  test("a compaction turn: durable markers around the summary, failed when there is nothing to compact", async (t) => {
    const env = await runEnv();
    t.after(() => env.close());
    const { session, transcript } = await env.session();
    const empty = await session.runTurn({ compactOnly: true });
    assert.deepEqual([empty.status, empty.error?.message], ["failed", "there is nothing to compact yet"]);
    env.model.enqueue({ text: "one" }, { text: "two" }, { text: "summary" });
    await session.runTurn({ text: "q1" });
    await session.runTurn({ text: "q2" });
    assert.equal(env.model.requests.length, 2);
    const compacted = await session.runTurn({ compactOnly: true });
    assert.equal(compacted.status, "completed");
    assert.deepEqual(
      transcript
        .branch()
        .slice(-3)
        .map((e) => e.type),
      ["turn_start", "compaction", "turn_end"],
    );
  });
});

describe("models", () => {
  test("no usable model is a ModelError before anything is written", async () => {
    const bare = await runEnv();
    try {
      const { writeFileSync } = await import("node:fs");
      const { join } = await import("node:path");
      writeFileSync(join(bare.agentDir, "models.json"), JSON.stringify({ providers: {} }));
      const { session, transcript } = await bare.session();
      const error = await session.runTurn({ text: "x" }).catch((e: unknown) => e);
      assert.ok(error instanceof ModelError);
      assert.equal(error.code, "noModel");
      assert.equal(transcript.branch().length, 0);
    } finally {
      await bare.close();
    }
  });

  test("a model without credentials is noCredentials", async () => {
    const keyless = await runEnv();
    try {
      const { writeFileSync } = await import("node:fs");
      const { join } = await import("node:path");
      const json = keyless.model.modelsJson() as { providers: Record<string, Record<string, unknown>> };
      delete json.providers.scripted!.apiKey;
      writeFileSync(join(keyless.agentDir, "models.json"), JSON.stringify(json));
      const { session } = await keyless.session({ defaultModel: { provider: "scripted", id: "scripted-model" } });
      const error = await session.runTurn({ text: "x" }).catch((e: unknown) => e);
      assert.ok(error instanceof ModelError);
      assert.equal(error.code, "noCredentials");
    } finally {
      await keyless.close();
    }
  });

  test("model and thinking level changes are validated and persisted", async () => {
    const { session, transcript } = await env.session();
    await assert.rejects(session.setModel({ provider: "scripted", id: "nope" }), (e: unknown) => e instanceof ModelError && e.code === "modelNotFound");
    await session.setModel({ provider: "scripted", id: "scripted-model" });
    await assert.rejects(session.setThinkingLevel("high"), (e: unknown) => e instanceof ModelError && e.code === "invalidThinkingLevel");
    await session.setModel({ provider: "scripted", id: "scripted-reasoner" });
    await session.setThinkingLevel("high");
    assert.equal(session.thinkingLevel, "high");
    assert.deepEqual(
      transcript.branch().map((e) => e.type),
      ["model_change", "thinking_level_change", "model_change", "thinking_level_change"],
    );
    env.model.enqueue({ text: "ok" });
    await session.runTurn({ text: "x" });
    assert.equal(env.model.requests.at(-1)!.body.model, "scripted-reasoner");
    assert.equal(env.model.requests.at(-1)!.body.reasoning_effort, "high");
  });
});
