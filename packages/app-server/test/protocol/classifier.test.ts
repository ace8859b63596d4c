import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, afterEach, before, describe, test } from "node:test";
import type { ServerRequestParams, ServerRequestResult } from "@knightcode/app-server-protocol";
import { ScriptedModelServer, type RecordedRequest, type ScriptedResponse } from "@knightcode/testkit";
import { startServer, type TestServer } from "../support/harness.js";

type ApprovalParams = ServerRequestParams<"item/toolCall/requestApproval">;
type DialogParams = ServerRequestParams<"ui/dialog">;
type DialogAnswer = ServerRequestResult<"ui/dialog">;
type ApprovalAnswer = ServerRequestResult<"item/toolCall/requestApproval">;
type ToolCall = { id: string; name: string; arguments: unknown };

const TURN_MODEL = "scripted-model";
const CLASSIFIER_MODEL = "scripted-classifier";
/** What every classifier reply bills: far more than the turn's replies, so it would show in the thread's usage. */
const CLASSIFIER_INPUT_TOKENS = 50_000;

let model: ScriptedModelServer;
let server: TestServer;
let toolsJson: string;
/** Requests are told apart by model id: the turn's queue and the classifier's, each answered in order. */
const turnReplies: ScriptedResponse[] = [];
const classifierReplies: ScriptedResponse[] = [];
const classifierRequests = () => model.requests.filter((r) => r.body.model === CLASSIFIER_MODEL);

before(async () => {
  model = await ScriptedModelServer.start();
  model.setFallback((request: RecordedRequest) => {
    const queue = request.body.model === CLASSIFIER_MODEL ? classifierReplies : turnReplies;
    return queue.shift() ?? { status: 500, body: { error: { message: `nothing queued for ${String(request.body.model)}` } } };
  });
  server = await startServer({ modelsJson: model.modelsJson({ models: [{ id: TURN_MODEL }, { id: CLASSIFIER_MODEL }] }) });
  toolsJson = join(server.agentDir, "tools.json");
});
afterEach(() => {
  rmSync(toolsJson, { force: true });
  turnReplies.length = 0;
  classifierReplies.length = 0;
});
after(async () => {
  if (process.env.SHOW_STDERR) process.stderr.write(server.stderr);
  await server.close();
  await model.close();
});

function configureClassifier(extra: Record<string, unknown> = {}): void {
  writeFileSync(toolsJson, JSON.stringify({ classifiers: { gate: { enabled: true, model: { provider: "scripted", id: CLASSIFIER_MODEL }, ...extra } } }));
}

let seq = 0;
const call = (name: string, args: unknown): ToolCall => ({ id: `call_c${++seq}`, name, arguments: args });

async function newThread(approvalMode: "ask" | "autoEdit" | "fullAccess", files: Record<string, string> = {}) {
  const cwd = server.project(files);
  const { thread } = await server.main.request("thread/start", { cwd, approvalMode, model: { provider: "scripted", id: TURN_MODEL } });
  return { thread, cwd };
}

/** One turn in which the model makes `calls`, then says "done"; what the client saw and what the model was sent. */
async function toolTurn(threadId: string, calls: ToolCall[]) {
  turnReplies.push({ toolCalls: calls }, { text: "done" });
  const requestsBefore = new Set(server.main.serverRequestMethods.keys());
  const turnRequestsBefore = model.requests.filter((r) => r.body.model === TURN_MODEL).length;
  const mark = server.main.notifications.length;
  await server.main.request("turn/start", { threadId, text: "use the tools" });
  const started = await server.main.waitForNotification("turn/started", (p) => p.threadId === threadId, { since: mark });
  const completed = await server.main.waitForNotification("turn/completed", (p) => p.turn.id === started.turn.id, { since: mark, timeoutMs: 20_000 });
  const items = server.main
    .notificationsOf("item/completed")
    .filter((p) => p.turnId === started.turn.id)
    .map((p) => p.item as { id: string; type: string; status?: string });
  const followUp = model.requests.filter((r) => r.body.model === TURN_MODEL)[turnRequestsBefore + 1];
  const serverRequests = [...server.main.serverRequestMethods].filter(([id]) => !requestsBefore.has(id)).map(([, method]) => method);
  return { turn: completed.turn, items, followUp, serverRequests };
}

/** The tool results the model was sent, by call id. */
function toolResults(request: RecordedRequest | undefined): Map<string, string> {
  const results = new Map<string, string>();
  for (const message of (request?.body.messages ?? []) as { role: string; tool_call_id?: string; content: unknown }[]) {
    if (message.role !== "tool") continue;
    results.set(message.tool_call_id!, typeof message.content === "string" ? message.content : JSON.stringify(message.content));
  }
  return results;
}

/** The transcript's classification entries. */
function classifications(sessionFile: string): Record<string, unknown>[] {
  return readFileSync(sessionFile, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => entry.type === "classification");
}

const classifierReply = (text: string): ScriptedResponse => ({ text, usage: { input: CLASSIFIER_INPUT_TOKENS } });

describe("classifier gate", () => {
  test("off by default: without tools.json no call is classified", async () => {
    const { thread, cwd } = await newThread("fullAccess");
    const before = classifierRequests().length;
    const write = call("bash", { command: "echo ran > marker.txt" });
    const { items, serverRequests } = await toolTurn(thread.id, [write]);
    assert.equal(items.find((i) => i.id === write.id)?.status, "completed");
    assert.ok(existsSync(join(cwd, "marker.txt")));
    assert.equal(classifierRequests().length, before);
    assert.deepEqual(serverRequests, []);
    assert.deepEqual(classifications(thread.sessionFile!), []);
    server.assertNoSchemaViolations();
  });

  test("a call judged SAFE runs without asking the client; the classification stays out of the turn and its usage", async () => {
    configureClassifier();
    const { thread, cwd } = await newThread("fullAccess");
    classifierReplies.push(classifierReply("SAFE: writes a file inside the project"));
    const before = classifierRequests().length;
    const write = call("bash", { command: "echo ran > marker.txt" });
    const mark = server.main.notifications.length;
    const { items, followUp, serverRequests } = await toolTurn(thread.id, [write]);
    assert.equal(items.find((i) => i.id === write.id)?.status, "completed");
    assert.ok(existsSync(join(cwd, "marker.txt")));
    assert.equal(classifierRequests().length, before + 1);
    const asked = JSON.stringify(classifierRequests().at(-1)!.body.messages);
    assert.match(asked, /echo ran > marker\.txt/);
    assert.deepEqual(serverRequests, []);
    // Neither the classifier's prompt nor its reply reaches the turn's model, its items or its usage.
    assert.doesNotMatch(JSON.stringify(followUp!.body.messages), /writes a file inside the project|You review tool calls/);
    assert.deepEqual(items.map((i) => i.type).sort(), ["agentMessage", "toolCall", "userMessage"].sort());
    const usage = server.main
      .notificationsOf("thread/tokenUsage/updated")
      .filter((p) => p.threadId === thread.id)
      .slice(-1)[0];
    assert.ok(usage && usage.usage.input < CLASSIFIER_INPUT_TOKENS, JSON.stringify(usage));
    assert.ok(server.main.notifications.slice(mark).every((n) => !JSON.stringify(n.params).includes("writes a file inside the project")));
    assert.deepEqual(
      classifications(thread.sessionFile!).map(({ toolCallId, tool, verdict, reason, confirmed }) => ({ toolCallId, tool, verdict, reason, confirmed })),
      [{ toolCallId: write.id, tool: "bash", verdict: "safe", reason: "writes a file inside the project", confirmed: undefined }],
    );
    server.assertNoSchemaViolations();
  });

  test("a call judged RISKY asks the client to confirm it, naming the call and the reason; confirmed, it runs", async () => {
    configureClassifier();
    const { thread, cwd } = await newThread("fullAccess");
    const asked: DialogParams[] = [];
    const off = server.main.client.onRequest("ui/dialog", (params): DialogAnswer => {
      asked.push(params);
      return { confirmed: true };
    });
    try {
      classifierReplies.push(classifierReply("RISKY: pushes to a remote"));
      const push = call("bash", { command: "echo pushed > marker.txt" });
      const { items, serverRequests } = await toolTurn(thread.id, [push]);
      assert.deepEqual(serverRequests, ["ui/dialog"]);
      assert.equal(asked.length, 1);
      const dialog = asked[0]!;
      assert.equal(dialog.kind, "confirm");
      assert.equal(dialog.threadId, thread.id);
      assert.equal(dialog.title, "Run bash?");
      assert.match((dialog as { message: string }).message, /judged this bash call risky: pushes to a remote/);
      assert.match((dialog as { message: string }).message, /echo pushed > marker\.txt/);
      assert.equal(items.find((i) => i.id === push.id)?.status, "completed");
      assert.ok(existsSync(join(cwd, "marker.txt")), "the confirmed call ran");
      const [entry] = classifications(thread.sessionFile!);
      assert.deepEqual(
        { verdict: entry!.verdict, reason: entry!.reason, confirmed: entry!.confirmed },
        { verdict: "risky", reason: "pushes to a remote", confirmed: true },
      );
    } finally {
      off();
    }
    server.assertNoSchemaViolations();
  });

  for (const [label, answer] of [
    ["{confirmed: false}", { confirmed: false }],
    ["{}", {}],
  ] as [string, DialogAnswer][]) {
    test(`a call judged RISKY and answered ${label} is blocked: the model gets the reason and the turn goes on`, async () => {
      configureClassifier();
      const { thread, cwd } = await newThread("fullAccess");
      const off = server.main.client.onRequest("ui/dialog", (): DialogAnswer => answer);
      try {
        classifierReplies.push(classifierReply("RISKY: pushes to a remote"));
        const push = call("bash", { command: "echo pushed > marker.txt" });
        const { turn, items, followUp, serverRequests } = await toolTurn(thread.id, [push]);
        assert.deepEqual(serverRequests, ["ui/dialog"]);
        assert.equal(turn.status, "completed");
        assert.equal(existsSync(join(cwd, "marker.txt")), false, "the call did not run");
        assert.equal(items.find((i) => i.id === push.id)?.status, "declined");
        const result = toolResults(followUp).get(push.id);
        assert.match(result ?? "", /The user did not confirm this tool call, which the safety classifier judged risky: pushes to a remote/);
        const [entry] = classifications(thread.sessionFile!);
        assert.deepEqual(
          { verdict: entry!.verdict, reason: entry!.reason, confirmed: entry!.confirmed },
          { verdict: "risky", reason: "pushes to a remote", confirmed: false },
        );
        const read = await server.main.request("thread/read", { threadId: thread.id });
        const saved = read.turns.at(-1)!.items!.find((i) => i.id === push.id) as { status?: string } | undefined;
        assert.equal(saved?.status, "declined", "history shows the unconfirmed call as declined");
      } finally {
        off();
      }
      server.assertNoSchemaViolations();
    });
  }

  test("a classifier that cannot answer fails closed, and the log says why", async () => {
    configureClassifier();
    const { thread, cwd } = await newThread("fullAccess");
    classifierReplies.push(classifierReply("Looks fine to me."), { status: 503, body: { error: { message: "overloaded" } } });
    const first = call("bash", { command: "echo one > one.txt" });
    const second = call("bash", { command: "echo two > two.txt" });
    const asked: DialogParams[] = [];
    const off = server.main.client.onRequest("ui/dialog", (params): DialogAnswer => {
      asked.push(params);
      return {};
    });
    const { items, followUp } = await toolTurn(thread.id, [first, second]).finally(off);
    assert.equal(asked.length, 2);
    assert.match((asked[0] as { message: string }).message, /could not judge this bash call: .*answered neither SAFE nor RISKY/);
    for (const [blocked, file] of [
      [first, "one.txt"],
      [second, "two.txt"],
    ] as const) {
      assert.equal(items.find((i) => i.id === blocked.id)?.status, "declined");
      assert.equal(existsSync(join(cwd, file)), false);
      assert.match(toolResults(followUp).get(blocked.id) ?? "", /the safety classifier could not judge it/);
    }
    assert.match(toolResults(followUp).get(first.id)!, /answered neither SAFE nor RISKY/);
    assert.match(toolResults(followUp).get(second.id)!, /failed/);
    await server.waitForStderr(new RegExp(`classifier gate: bash call ${second.id} needs confirmation`));
    assert.match(server.stderr, new RegExp(`classifier gate: bash call ${first.id} needs confirmation: .*answered neither SAFE nor RISKY`));
  });

  test("an unknown classifier model is a load warning, and every call it would judge fails closed without a request", async () => {
    writeFileSync(toolsJson, JSON.stringify({ classifiers: { gate: { enabled: true, model: { provider: "scripted", id: "no-such-model" } } } }));
    const cwd = server.project();
    const started = await server.main.request("thread/start", { cwd, approvalMode: "fullAccess", model: { provider: "scripted", id: TURN_MODEL } });
    const warning = started.warnings?.find((w) => w.path === toolsJson);
    assert.ok(warning, JSON.stringify(started.warnings));
    assert.equal(warning.source, "settings");
    assert.match(warning.message, /no-such-model is not a known model/);
    const before = classifierRequests().length;
    const run = call("bash", { command: "echo x > x.txt" });
    const { items } = await toolTurn(started.thread.id, [run]);
    assert.equal(items.find((i) => i.id === run.id)?.status, "declined");
    assert.equal(classifierRequests().length, before);
  });

  test("read-only tools are never classified", async () => {
    configureClassifier();
    const { thread } = await newThread("fullAccess", { "a.txt": "alpha\n" });
    const before = classifierRequests().length;
    const read = call("read", { path: "a.txt" });
    const { items } = await toolTurn(thread.id, [read]);
    assert.equal(items.find((i) => i.id === read.id)?.status, "completed");
    assert.equal(classifierRequests().length, before);
  });

  test("a call the approval gate asks about is not classified; once a grant covers it, it is", async () => {
    configureClassifier();
    const { thread, cwd } = await newThread("ask");
    const asked: ApprovalParams[] = [];
    const off = server.main.client.onRequest("item/toolCall/requestApproval", (params): ApprovalAnswer => {
      asked.push(params);
      return { decision: "acceptForSession" };
    });
    try {
      const before = classifierRequests().length;
      const first = call("write", { path: "first.txt", content: "1" });
      const granted = await toolTurn(thread.id, [first]);
      assert.equal(asked.length, 1, "the user was asked once");
      assert.equal(granted.items.find((i) => i.id === first.id)?.status, "completed");
      assert.equal(classifierRequests().length, before, "a call the user approved is not also classified");

      classifierReplies.push(classifierReply("RISKY: overwrites a file it just wrote"));
      const second = call("write", { path: "second.txt", content: "2" });
      const covered = await toolTurn(thread.id, [second]);
      assert.equal(asked.length, 1, "the session grant covers the second call");
      assert.equal(classifierRequests().length, before + 1, "a call a grant lets through is classified");
      assert.equal(covered.items.find((i) => i.id === second.id)?.status, "declined");
      assert.equal(existsSync(join(cwd, "second.txt")), false);
    } finally {
      off();
    }
  });
});
