import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ScriptedModelServer } from "@knightcode/testkit";
import { startServer, type TestClient, type TestServer } from "../support/harness.js";

// Faults: every started turn ends with one turn/completed and one
// thread/turn/completed, and the thread says why. Here the faults are the
// extensions' own: handlers that throw or never finish, and providers whose
// stream function throws instead of reporting an error.

let model: ScriptedModelServer;
before(async () => {
  model = await ScriptedModelServer.start();
});
after(async () => {
  await model.close();
});

/** Puts an extension where every thread of the server finds it: the agent dir's `extensions/` folder. */
function install(server: TestServer, name: string, source: string): string {
  const dir = join(server.agentDir, "extensions");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, source);
  return path;
}

/** Closes the server and waits for its exit, keeping its home for a second server to read. */
async function stop(server: TestServer): Promise<void> {
  server.transport.close();
  await server.waitForExit();
  server.assertNoSchemaViolations();
}

type Seen = [method: string, detail: string];

/**
 * What the client saw about the thread since `mark`: each notification as
 * its method and the part that matters here (a warning's text, an item's
 * type, a turn's status). Status, name and usage updates interleave with the
 * turn in ways this file does not check, so they are left out.
 */
function seen(client: TestClient, threadId: string, mark: number): Seen[] {
  const skipped = new Set(["thread/status/changed", "thread/name/updated", "thread/tokenUsage/updated"]);
  return client.notifications.slice(mark).flatMap((n): Seen[] => {
    const p = n.params as Record<string, any>;
    if (skipped.has(n.method) || p.threadId !== threadId) return [];
    switch (n.method) {
      case "warning":
        return [[n.method, p.warning.message]];
      case "item/started":
      case "item/completed":
      case "item/removed":
        return [[n.method, p.item?.type ?? ""]];
      case "turn/started":
      case "turn/completed":
      case "thread/turn/completed":
        return [[n.method, p.turn.status]];
      default:
        return [[n.method, ""]];
    }
  });
}

/** A saved item as the fields these tests check: a tool call's name, status and output, another item's text. */
function savedItem(item: object): unknown[] {
  const fields = item as Record<string, unknown>;
  assert.equal(fields.payloadRef, undefined, "small items are inline");
  return fields.type === "toolCall" ? [fields.type, fields.name, fields.status, fields.output] : [fields.type, fields.text];
}

/** Starts a turn and waits for its thread/turn/completed, the last notification a turn sends. */
async function runTurn(server: TestServer, threadId: string, text: string) {
  const mark = server.main.notifications.length;
  const answer = await server.main.request("turn/start", { threadId, text });
  assert.equal(answer.status, "started");
  const done = await server.main.waitForNotification("thread/turn/completed", (p) => p.threadId === threadId, { since: mark, timeoutMs: 20_000 });
  return { mark, turn: done.turn };
}

/** The warnings of a handler registered twice, once throwing at once and once by a rejected promise. */
const threw = (event: string): Seen[] => [
  ["warning", `${event} handler failed: sync ${event}`],
  ["warning", `${event} handler failed: async ${event}`],
];

const TURN_HOOKS = [
  "input",
  "before_agent_start",
  "agent_start",
  "turn_start",
  "message_start",
  "message_end",
  "tool_call",
  "tool_result",
  "turn_end",
  "agent_end",
];
const ALL_HOOKS = [...TURN_HOOKS, "session_start", "session_shutdown"];

/** Two tools: `probe`, which the extension's own tool_call check refuses by failing, and `echo`, which runs. */
function toolsSource(mark: string): string {
  return `
  kc.registerTool({ name: "probe", description: "leaves a mark", parameters: { type: "object", properties: {} },
    async execute() { appendFileSync(${JSON.stringify(mark)}, "ran\\n"); return { content: [{ type: "text", text: "probe ran" }], details: {} }; } });
  kc.registerTool({ name: "echo", description: "echoes", parameters: { type: "object", properties: { text: { type: "string" } } },
    async execute(_id: string, params: any) { return { content: [{ type: "text", text: "echo " + params.text }], details: {} }; } });`;
}

describe("spec: Extensions, Failures (a handler that throws)", () => {
  test("a throw in every hook, at once or by a rejected promise: the turn ends once, the failing tool_call blocks its call, the rest warn and go on; a new server reads the turn as saved", async () => {
    const server = await startServer({ model });
    try {
      const mark = join(server.home, "probe-ran.txt");
      const path = install(
        server,
        "thrower.ts",
        `import { appendFileSync } from "node:fs";
export default function (kc: any) {
  ${toolsSource(mark)}
  for (const event of ${JSON.stringify(ALL_HOOKS)}) {
    // The check fails for probe only, so echo runs and reaches tool_result.
    const fails = (e: any) => event !== "tool_call" || e.toolName === "probe";
    kc.on(event, (e: any) => { if (fails(e)) throw new Error("sync " + event); });
    kc.on(event, async (e: any) => { await Promise.resolve(); if (fails(e)) throw new Error("async " + event); });
  }
}`,
      );
      const cwd = server.project();
      const started = await server.main.request("thread/start", { cwd, approvalMode: "fullAccess" });
      const threadId = started.thread.id;
      assert.deepEqual(started.warnings, [
        { message: "session_start handler failed: sync session_start", source: "extension", path },
        { message: "session_start handler failed: async session_start", source: "extension", path },
      ]);

      model.enqueue(
        { toolCalls: [{ id: "call-probe", name: "probe", arguments: {} }] },
        { toolCalls: [{ id: "call-echo", name: "echo", arguments: { text: "hi" } }] },
        { text: "after the block" },
      );
      const before = model.requests.length;
      const { mark: since, turn } = await runTurn(server, threadId, "go");
      assert.equal(turn.status, "completed");

      // A reply that only asks for a tool: its call's item starts once the reply ended.
      const callReply = (): Seen[] => [...threw("message_start"), ...threw("message_end"), ["item/started", "toolCall"]];
      assert.deepEqual(seen(server.main, threadId, since), [
        ...threw("input"),
        ["turn/started", "inProgress"],
        ...threw("before_agent_start"),
        ...threw("agent_start"),
        ...threw("turn_start"),
        ...threw("message_start"),
        ["item/started", "userMessage"],
        ["item/completed", "userMessage"],
        ...threw("message_end"),
        // The model asks for probe: the check that throws blocks it, and the handlers after it do not run.
        ...callReply(),
        ["warning", "tool_call handler failed: sync tool_call"],
        ...threw("message_start"),
        ["item/completed", "toolCall"],
        ...threw("message_end"),
        ...threw("turn_end"),
        // Then echo: it runs, and its tool_result handlers fail without changing its result.
        ...threw("turn_start"),
        ...callReply(),
        ...threw("tool_result"),
        ...threw("message_start"),
        ["item/completed", "toolCall"],
        ...threw("message_end"),
        ...threw("turn_end"),
        ...threw("turn_start"),
        ...threw("message_start"),
        ["item/started", "agentMessage"],
        ["item/agentMessage/delta", ""],
        ["item/completed", "agentMessage"],
        ...threw("message_end"),
        ...threw("turn_end"),
        ...threw("agent_end"),
        ["turn/completed", "completed"],
        ["thread/turn/completed", "completed"],
      ]);
      assert.equal(existsSync(mark), false, "the blocked call never ran");
      const toolResults = (index: number) =>
        model.requests[index]!.body.messages.filter((m: { role: string }) => m.role === "tool").map((m: { content: string }) => m.content);
      assert.deepEqual(toolResults(before + 1), ["Blocked: the thrower extension's check of this call failed (sync tool_call), so the call did not run."]);
      assert.deepEqual(toolResults(before + 2).slice(1), ["echo hi"]);

      // Unloading sends session_shutdown: its failures hold nothing up, and the log keeps them.
      assert.deepEqual(await server.main.request("thread/archive", { threadId }), {});
      await server.waitForStderr(/session_shutdown handler failed: async session_shutdown/);
      assert.match(server.stderr, /session_shutdown handler failed: sync session_shutdown/);
      await stop(server);
      const second = await startServer({ model, home: server.home });
      try {
        const read = await second.main.request("thread/read", { threadId });
        assert.equal(read.turns.length, 1);
        const saved = read.turns[0]!;
        assert.equal(saved.id, turn.id);
        assert.equal(saved.status, "completed");
        assert.deepEqual(saved.items!.map(savedItem), [
          ["userMessage", "go"],
          ["toolCall", "probe", "failed", "Blocked: the thrower extension's check of this call failed (sync tool_call), so the call did not run."],
          ["toolCall", "echo", "completed", "echo hi"],
          ["agentMessage", "after the block"],
        ]);
      } finally {
        await second.close();
      }
    } finally {
      server.cleanup();
    }
  });
});

describe("spec: Extensions, Failures (a handler that never finishes; extensionHookTimeoutMs)", () => {
  const LIMIT = 250;

  test("every hook that hangs is abandoned after the limit: the turn ends once, the hung tool_call blocks its call, a hung message_end holds the turn for the limit and no longer", async () => {
    const server = await startServer({ model });
    try {
      writeFileSync(join(server.agentDir, "settings.json"), JSON.stringify({ extensionHookTimeoutMs: LIMIT }));
      const mark = join(server.home, "probe-ran.txt");
      const path = install(
        server,
        "hanger.ts",
        `import { appendFileSync } from "node:fs";
export default function (kc: any) {
  ${toolsSource(mark)}
  for (const event of ${JSON.stringify(ALL_HOOKS)}) {
    kc.on(event, (e: any) => (event !== "tool_call" || e.toolName === "probe" ? new Promise(() => {}) : undefined));
  }
}`,
      );
      const hung = (event: string): Seen => ["warning", `${event} handler of hanger did not finish within ${LIMIT} ms; it was abandoned`];
      const started = await server.main.request("thread/start", { cwd: server.project(), approvalMode: "fullAccess" });
      const threadId = started.thread.id;
      assert.deepEqual(started.warnings, [{ message: hung("session_start")[1], source: "extension", path }]);

      model.enqueue(
        { toolCalls: [{ id: "call-probe", name: "probe", arguments: {} }] },
        { toolCalls: [{ id: "call-echo", name: "echo", arguments: { text: "hi" } }] },
        { text: "after the block" },
      );
      const before = model.requests.length;
      const { mark: since, turn } = await runTurn(server, threadId, "go");
      assert.equal(turn.status, "completed");
      const callReply: Seen[] = [hung("message_start"), hung("message_end"), ["item/started", "toolCall"]];
      const toolResult: Seen[] = [hung("message_start"), ["item/completed", "toolCall"], hung("message_end"), hung("turn_end")];
      const expected: Seen[] = [
        hung("input"),
        ["turn/started", "inProgress"],
        hung("before_agent_start"),
        hung("agent_start"),
        hung("turn_start"),
        hung("message_start"),
        ["item/started", "userMessage"],
        ["item/completed", "userMessage"],
        hung("message_end"),
        ...callReply,
        hung("tool_call"),
        ...toolResult,
        hung("turn_start"),
        ...callReply,
        hung("tool_result"),
        ...toolResult,
        hung("turn_start"),
        hung("message_start"),
        ["item/started", "agentMessage"],
        ["item/agentMessage/delta", ""],
        ["item/completed", "agentMessage"],
        hung("message_end"),
        hung("turn_end"),
        hung("agent_end"),
        ["turn/completed", "completed"],
        ["thread/turn/completed", "completed"],
      ];
      assert.deepEqual(seen(server.main, threadId, since), expected);
      assert.equal(existsSync(mark), false, "the call whose check never answered did not run");
      const probeResult = model.requests[before + 1]!.body.messages.find((m: { role: string }) => m.role === "tool");
      assert.equal(probeResult.content, `Blocked: the hanger extension's check of this call did not finish within ${LIMIT} ms, so the call did not run.`);
      assert.equal(model.requests[before + 2]!.body.messages.filter((m: { role: string }) => m.role === "tool")[1].content, "echo hi");

      // Every hung handler after turn/started held the turn for the limit, and none for longer: the turn took about their sum.
      const heldInTurn = expected.filter(([method], i) => method === "warning" && i > 1).length;
      const took = turn.completedAt! - turn.startedAt;
      assert.ok(took >= heldInTurn * (LIMIT - 2), `the turn took ${took} ms for ${heldInTurn} hung handlers`);
      assert.ok(took < heldInTurn * LIMIT + 5_000, `the turn took ${took} ms for ${heldInTurn} hung handlers`);

      // A hung session_shutdown holds an unload for the limit, then the thread goes.
      assert.deepEqual(await server.main.request("thread/archive", { threadId }), {});
      await server.waitForStderr(/session_shutdown handler of hanger did not finish within 250 ms/);
      await stop(server);

      const second = await startServer({ model, home: server.home });
      try {
        const read = await second.main.request("thread/read", { threadId });
        assert.deepEqual(
          read.turns.map((t) => [t.id, t.status]),
          [[turn.id, "completed"]],
        );
        assert.deepEqual(read.turns[0]!.items!.map(savedItem), [
          ["userMessage", "go"],
          ["toolCall", "probe", "failed", `Blocked: the hanger extension's check of this call did not finish within ${LIMIT} ms, so the call did not run.`],
          ["toolCall", "echo", "completed", "echo hi"],
          ["agentMessage", "after the block"],
        ]);
      } finally {
        await second.close();
      }
    } finally {
      server.cleanup();
    }
  });
});

/**
 * Providers whose stream function fails the way an SDK does when it throws
 * instead of reporting an error. A prompt that says "fail" makes them fail;
 * any other gets a reply naming the context the provider was given, so a
 * test sees whether a failed reply came back into the next request.
 */
const FLAKY_PROVIDERS = `
const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
const message = (model: any, text?: string) => ({
  role: "assistant", content: text === undefined ? [] : [{ type: "text", text }], api: model.api, provider: model.provider, model: model.id,
  usage, stopReason: "stop", timestamp: Date.now(),
});
const textOf = (m: any) => (typeof m.content === "string" ? m.content : m.content.filter((c: any) => c.type === "text").map((c: any) => c.text).join(""));
const lastPrompt = (context: any) => textOf(context.messages.filter((m: any) => m.role === "user").at(-1));
async function* opening(model: any, text: string) {
  yield { type: "start", partial: message(model) };
  yield { type: "text_start", contentIndex: 0, partial: message(model, "") };
  yield { type: "text_delta", contentIndex: 0, delta: text, partial: message(model, text) };
}
async function* reply(model: any, context: any) {
  const text = "context: " + context.messages.map((m: any) => m.role + ":" + textOf(m)).join(" | ");
  yield* opening(model, text);
  yield { type: "text_end", contentIndex: 0, content: text, partial: message(model, text) };
  yield { type: "done", reason: "stop", message: message(model, text) };
}
const provider = (streamSimple?: any, api = "flaky-api") => ({ baseUrl: "http://127.0.0.1:9/v1", api, apiKey: "unused", models: [{ id: "m" }], streamSimple });

export default function (kc: any) {
  kc.registerProvider("at-once", provider((model: any, context: any) => {
    if (lastPrompt(context).includes("fail")) throw new Error("the SDK refused the request at once");
    return reply(model, context);
  }));
  kc.registerProvider("midway", provider(async function* (model: any, context: any) {
    if (!lastPrompt(context).includes("fail")) return yield* reply(model, context);
    yield* opening(model, "partial ");
    throw new Error("the SDK lost the stream midway");
  }));
  kc.registerProvider("rejects", provider((model: any, context: any) => {
    if (!lastPrompt(context).includes("fail")) return reply(model, context);
    const events = opening(model, "partial ");
    return { [Symbol.asyncIterator]: () => ({ next: async () => { const next = await events.next(); if (next.done) return Promise.reject(new Error("the SDK's stream rejected")); return next; } }) };
  }));
  kc.registerProvider("no-api", provider(undefined, "no-such-api"));
  kc.registerProvider("deaf", provider(async function* (model: any, context: any) {
    if (!lastPrompt(context).includes("hang")) return yield* reply(model, context);
    yield* opening(model, "partial ");
    // Deaf to the abort: it never yields again and never ends.
    await new Promise(() => undefined);
  }));
}
`;

describe("spec: Extensions, Failures (a provider that throws instead of reporting an error)", () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ model });
    writeFileSync(join(server.agentDir, "settings.json"), JSON.stringify({ interruptGraceMs: 200 }));
    install(server, "flaky-providers.ts", FLAKY_PROVIDERS);
  });
  after(async () => {
    await server.close();
  });

  async function threadOn(provider: string): Promise<string> {
    const { thread } = await server.main.request("thread/start", { cwd: server.project() });
    await server.main.request("thread/settings/update", { threadId: thread.id, model: { provider, id: "m" } });
    return thread.id;
  }

  /** The failed turn's notifications: exactly one turn/completed and one thread/turn/completed, both failed with the same error. */
  async function failedTurn(threadId: string, text: string, error: { message: string; kind: string }, streamed: Seen[]) {
    const { mark, turn } = await runTurn(server, threadId, text);
    assert.equal(turn.status, "failed");
    assert.deepEqual(turn.error, error);
    assert.deepEqual(seen(server.main, threadId, mark), [
      ["turn/started", "inProgress"],
      ["item/started", "userMessage"],
      ["item/completed", "userMessage"],
      ...streamed,
      ["turn/completed", "failed"],
      ["thread/turn/completed", "failed"],
    ]);
    const completed = server.main.notificationsOf("turn/completed").filter((p) => p.turn.id === turn.id);
    assert.deepEqual(
      completed.map((p) => p.turn.error),
      [error],
    );
    return turn;
  }

  /** The next turn of the thread works, and the provider got no failed reply in its context. */
  async function nextTurnWorks(threadId: string, failedPrompt: string) {
    const { turn } = await runTurn(server, threadId, "answer now");
    assert.equal(turn.status, "completed");
    const answer = server.main.notificationsOf("item/completed").filter((p) => p.turnId === turn.id && p.item.type === "agentMessage");
    assert.deepEqual(
      answer.map((p) => ("text" in p.item ? p.item.text : undefined)),
      [`context: user:${failedPrompt} | user:answer now`],
    );
  }

  test("a stream function that throws at once fails the turn with its message; the next turn works; a new server reads the failure", async () => {
    const threadId = await threadOn("at-once");
    const failed = await failedTurn(threadId, "please fail", { message: "the SDK refused the request at once", kind: "other" }, []);
    await nextTurnWorks(threadId, "please fail");
    const second = await startServer({ model, home: server.home });
    try {
      const read = await second.main.request("thread/read", { threadId });
      assert.deepEqual(
        read.turns.map((t) => [t.id, t.status, t.error]),
        [
          [failed.id, "failed", { message: "the SDK refused the request at once", kind: "other" }],
          [read.turns[1]!.id, "completed", undefined],
        ],
      );
      assert.deepEqual(read.turns[0]!.items!.map(savedItem), [["userMessage", "please fail"]]);
    } finally {
      await second.close();
    }
  });

  test("a stream that throws midway fails the turn with its message; what it streamed is withdrawn; the next turn works", async () => {
    const threadId = await threadOn("midway");
    await failedTurn(threadId, "fail midway", { message: "the SDK lost the stream midway", kind: "other" }, [
      ["item/started", "agentMessage"],
      ["item/agentMessage/delta", ""],
      ["item/removed", ""],
    ]);
    await nextTurnWorks(threadId, "fail midway");
  });

  test("a stream deaf to the interrupt: the turn ends interrupted after interruptGraceMs, what it streamed is kept as an interrupted reply, and the next turn works", async () => {
    const threadId = await threadOn("deaf");
    const mark = server.main.notifications.length;
    await server.main.request("turn/start", { threadId, text: "please hang" });
    await server.main.waitForNotification("item/agentMessage/delta", (p) => p.threadId === threadId, { since: mark });
    await server.main.request("turn/interrupt", { threadId });
    const done = await server.main.waitForNotification("turn/completed", (p) => p.threadId === threadId, { since: mark });
    assert.equal(done.turn.status, "interrupted");
    assert.deepEqual(seen(server.main, threadId, mark), [
      ["turn/started", "inProgress"],
      ["item/started", "userMessage"],
      ["item/completed", "userMessage"],
      ["item/started", "agentMessage"],
      ["item/agentMessage/delta", ""],
      ["item/completed", "agentMessage"],
      ["turn/completed", "interrupted"],
      ["thread/turn/completed", "interrupted"],
    ]);
    await nextTurnWorks(threadId, "please hang");
  });

  test("a stream whose next event rejects fails the turn the same way", async () => {
    const threadId = await threadOn("rejects");
    await failedTurn(threadId, "fail by rejecting", { message: "the SDK's stream rejected", kind: "other" }, [
      ["item/started", "agentMessage"],
      ["item/agentMessage/delta", ""],
      ["item/removed", ""],
    ]);
    await nextTurnWorks(threadId, "fail by rejecting");
  });

  test("a provider whose API nobody speaks (pi-ai throws at once) fails the turn; with another model the thread goes on, and no failed reply reaches the model", async () => {
    const threadId = await threadOn("no-api");
    await failedTurn(threadId, "hello?", { message: "No API provider registered for api: no-such-api", kind: "other" }, []);
    await server.main.request("thread/settings/update", { threadId, model: { provider: "scripted", id: "scripted-model" } });
    model.enqueue({ text: "here I am" });
    const before = model.requests.length;
    const { turn } = await runTurn(server, threadId, "anyone?");
    assert.equal(turn.status, "completed");
    const messages = model.requests[before]!.body.messages.map((m: { role: string; content: unknown }) => [
      m.role,
      typeof m.content === "string" ? m.content : JSON.stringify(m.content),
    ]);
    assert.deepEqual(messages.slice(1), [
      ["user", JSON.stringify([{ type: "text", text: "hello?" }])],
      ["user", JSON.stringify([{ type: "text", text: "anyone?" }])],
    ]);
  });
});
