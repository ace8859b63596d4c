import assert from "node:assert/strict";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { RequestId, ServerRequestParams, ServerRequestResult } from "@knightcode/app-server-protocol";
import { AppServerError, readPayload } from "@knightcode/app-server-client";
import { ScriptedModelServer } from "@knightcode/testkit";
import { type TestServer, startServer, waitUntil, type TestClient } from "../support/harness.js";

type ApprovalParams = ServerRequestParams<"item/toolCall/requestApproval">;
type ApprovalAnswer = ServerRequestResult<"item/toolCall/requestApproval">;
type ToolCall = { id?: string; name: string; arguments: unknown };

const TOKEN = "approvals-test-token-0123456789abcdef";
let model: ScriptedModelServer;
let server: TestServer;
let url: string;
let ws: TestClient;
let cwd: string;
let extensionDir: string;
let home: string;

/** An extension tool that leaves a marker file where its input says: proof that it ran. */
const DEPLOY_EXTENSION = `
import { writeFileSync } from "node:fs";
export default function (kc: any) {
  kc.registerTool({
    name: "deploy",
    description: "Deploys a build",
    parameters: { type: "object", properties: { marker: { type: "string" } }, required: ["marker"] },
    async execute(_id: string, params: { marker: string }) {
      writeFileSync(params.marker, "deployed");
      return { content: [{ type: "text", text: "deployed" }], details: {} };
    },
  });
  kc.registerTool({
    name: "batch",
    description: "Runs several tool calls",
    parameters: { type: "object", properties: { calls: { type: "array" } }, required: ["calls"] },
    async execute(_id: string, params: { calls: { name: string; params: unknown }[] }, signal: AbortSignal, _update: unknown, ctx: any) {
      const lines = [];
      for (const call of params.calls) {
        const result = await ctx.runTool(call.name, call.params, signal);
        lines.push(call.name + (result.isError ? " failed: " : ": ") + result.content.map((c: any) => c.text).join(""));
      }
      return { content: [{ type: "text", text: lines.join("\\n") }], details: {} };
    },
  });
}
`;

before(async () => {
  model = await ScriptedModelServer.start();
  extensionDir = mkdtempSync(join(tmpdir(), "kc-approvals-ext-"));
  writeFileSync(join(extensionDir, "deploy.ts"), DEPLOY_EXTENSION);
  // Every built-in tool on, so the table can be checked row by row.
  home = mkdtempSync(join(tmpdir(), "kc-approvals-home-"));
  mkdirSync(join(home, ".knightcode", "agent"), { recursive: true });
  writeFileSync(join(home, ".knightcode", "agent", "settings.json"), JSON.stringify({ defaultTools: ["+grep", "+find", "+ls"] }));
  server = await startServer({
    model,
    home,
    args: ["-e", join(extensionDir, "deploy.ts"), "--listen", "ws://127.0.0.1:0", "--listen-token", TOKEN],
    env: { KNIGHTCODE_THREAD_IDLE_MS: "300" },
  });
  url = (await server.waitForStderr(/listening on (ws:\S+)/))[1]!;
  ws = await server.connectWebSocket(url, TOKEN);
  await ws.initialize();
  cwd = server.project({ "a.txt": "alpha\n", "e.txt": "one two\n" });
});
after(async () => {
  if (process.env.SHOW_STDERR) process.stderr.write(server.stderr);
  await server.close();
  await model.close();
  rmSync(extensionDir, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

interface Asked {
  params: ApprovalParams;
  requestId: RequestId;
  withdrawn: boolean;
}

/** Answers every approval request a client gets with `decide`, recording each one. */
function approver(client: TestClient, decide: (params: ApprovalParams) => ApprovalAnswer | Promise<ApprovalAnswer>) {
  const asked: Asked[] = [];
  const off = client.client.onRequest("item/toolCall/requestApproval", (params, context) => {
    const entry: Asked = { params, requestId: context.requestId, withdrawn: false };
    asked.push(entry);
    context.signal.addEventListener("abort", () => (entry.withdrawn = true));
    return decide(params);
  });
  return { asked, off };
}

/** Approval answers that wait until the test gives one. */
function holding(client: TestClient) {
  const waiting: ((answer: ApprovalAnswer) => void)[] = [];
  const handle = approver(client, () => new Promise<ApprovalAnswer>((resolve) => waiting.push(resolve)));
  return {
    ...handle,
    answer(answer: ApprovalAnswer, index = waiting.length - 1) {
      waiting[index]!(answer);
    },
  };
}

let callSeq = 0;
const call = (name: string, args: unknown): ToolCall => ({ id: `call_${++callSeq}`, name, arguments: args });

async function newThread(client: TestClient, approvalMode?: "ask" | "autoEdit" | "fullAccess", dir = cwd) {
  return (await client.request("thread/start", { cwd: dir, ...(approvalMode ? { approvalMode } : {}) })).thread;
}

/** Starts a turn whose model calls `calls`, then (unless the turn is meant to stop) says "done". */
async function startToolTurn(client: TestClient, threadId: string, calls: ToolCall[], options: { followUp?: boolean } = {}) {
  if (options.followUp === false) model.enqueue({ toolCalls: calls });
  else model.enqueue({ toolCalls: calls }, { text: "done" });
  const mark = client.notifications.length;
  const modelMark = model.requests.length;
  await client.request("turn/start", { threadId, text: "use the tools" });
  const started = await client.waitForNotification("turn/started", (p) => p.threadId === threadId, { since: mark });
  return { turnId: started.turn.id, modelMark };
}

async function finish(client: TestClient, turnId: string, modelMark: number) {
  const completed = await client.waitForNotification("turn/completed", (p) => p.turn.id === turnId, { timeoutMs: 20_000 });
  const items = client
    .notificationsOf("item/completed")
    .filter((p) => p.turnId === turnId)
    .map((p) => p.item as { id: string; type: string; status?: string; output?: unknown });
  return { turn: completed.turn, items, followUp: model.requests[modelMark + 1] };
}

async function toolTurn(client: TestClient, threadId: string, calls: ToolCall[], options: { followUp?: boolean } = {}) {
  const { turnId, modelMark } = await startToolTurn(client, threadId, calls, options);
  return finish(client, turnId, modelMark);
}

/** The tool results the model was sent, by call id. */
function toolResults(request: { body: Record<string, any> } | undefined): Map<string, string> {
  const results = new Map<string, string>();
  for (const message of (request?.body.messages ?? []) as { role: string; tool_call_id?: string; content: unknown }[]) {
    if (message.role !== "tool") continue;
    const text = typeof message.content === "string" ? message.content : JSON.stringify(message.content);
    results.set(message.tool_call_id!, text);
  }
  return results;
}

function statuses(client: TestClient, threadId: string, since: number) {
  return client.notifications
    .slice(since)
    .filter((n) => n.method === "thread/status/changed" && (n.params as { threadId: string }).threadId === threadId)
    .map((n) => (n.params as { status: { type: string; waitingOn?: string[] } }).status);
}

describe("spec: Approvals (modes)", () => {
  test("each mode x tool class asks exactly where the table says, and accepted calls run", async () => {
    const { asked, off } = approver(server.main, () => ({ decision: "accept" }));
    try {
      const expected: Record<string, string[]> = {
        ask: ["write", "edit", "bash", "deploy"],
        autoEdit: ["bash", "deploy"],
        fullAccess: [],
      };
      for (const mode of ["ask", "autoEdit", "fullAccess"] as const) {
        const dir = server.project({ "a.txt": "alpha\n", "e.txt": "one two\n" });
        const thread = await newThread(server.main, mode, dir);
        const marker = join(dir, "deployed");
        const cases: [string, ToolCall, () => boolean][] = [
          ["read", call("read", { path: "a.txt" }), () => true],
          ["ls", call("ls", {}), () => true],
          ["grep", call("grep", { pattern: "alpha" }), () => true],
          ["find", call("find", { pattern: "*.txt" }), () => true],
          ["write", call("write", { path: "w.txt", content: "written\n" }), () => existsSync(join(dir, "w.txt"))],
          ["edit", call("edit", { path: "e.txt", oldText: "two", newText: "2" }), () => readFileSync(join(dir, "e.txt"), "utf8") === "one 2\n"],
          ["bash", call("bash", { command: "echo ran > b.txt" }), () => existsSync(join(dir, "b.txt"))],
          ["deploy", call("deploy", { marker }), () => existsSync(marker)],
        ];
        const before = asked.length;
        for (const [name, toolCall, ran] of cases) {
          const { items, turn } = await toolTurn(server.main, thread.id, [toolCall]);
          assert.equal(turn.status, "completed", `${mode} ${name}`);
          const item = items.find((i) => i.id === toolCall.id);
          assert.equal(item?.status, "completed", `${mode} ${name}: ${JSON.stringify(item)}`);
          assert.ok(ran(), `${mode}: ${name} ran`);
        }
        assert.deepEqual(
          asked.slice(before).map((a) => a.params.tool),
          expected[mode],
          `${mode} asked about`,
        );
      }
    } finally {
      off();
    }
  });

  test("the request names the thread, turn and started item, the tool, its input and the offered decisions; the status shows the wait", async () => {
    const thread = await newThread(server.main);
    assert.equal(thread.approvalMode, "ask", "a desktop thread defaults to ask");
    const hold = holding(server.main);
    try {
      const wsMark = ws.notifications.length;
      const mark = server.main.notifications.length;
      const toolCall = call("write", { path: "req.txt", content: "x" });
      const { turnId, modelMark } = await startToolTurn(server.main, thread.id, [toolCall]);
      await waitUntil("the approval request", () => hold.asked[0]);
      const { params } = hold.asked[0]!;
      assert.deepEqual(params, {
        threadId: thread.id,
        turnId,
        itemId: toolCall.id!,
        tool: "write",
        input: { path: "req.txt", content: "x" },
        decisions: ["accept", "acceptForSession", "decline", "cancel"],
      });
      const started = server.main
        .notificationsOf("item/started")
        .filter((p) => p.turnId === turnId)
        .map((p) => p.item.id);
      assert.ok(started.includes(toolCall.id!), "the tool call item started before the question");
      await ws.waitForNotification(
        "thread/status/changed",
        (p) => p.threadId === thread.id && p.status.type === "active" && (p.status.waitingOn ?? []).includes("approval"),
        { since: wsMark },
      );
      assert.equal(existsSync(join(cwd, "req.txt")), false, "nothing runs while the user decides");
      hold.answer({ decision: "accept" });
      await finish(server.main, turnId, modelMark);
      assert.deepEqual(
        statuses(server.main, thread.id, mark).map((s) => (s.type === "active" ? `active:${(s.waitingOn ?? []).join(",")}` : s.type)),
        ["active:", "active:approval", "active:", "idle"],
      );
      assert.equal(readFileSync(join(cwd, "req.txt"), "utf8"), "x");
    } finally {
      hold.off();
    }
  });

  test("a large input travels as a payload reference that reads back to the exact input", async () => {
    const thread = await newThread(server.main);
    const content = "line of a big file é\n".repeat(2000);
    const hold = holding(server.main);
    try {
      const { turnId, modelMark } = await startToolTurn(server.main, thread.id, [call("write", { path: "big.txt", content })]);
      await waitUntil("the approval request", () => hold.asked[0]);
      const { params } = hold.asked[0]!;
      assert.equal(params.input, undefined);
      assert.ok(params.inputRef && params.inputRef.bytes > 16 * 1024);
      const input = JSON.parse((await readPayload(server.main.client, params.inputRef)).toString("utf8"));
      assert.deepEqual(input, { path: "big.txt", content });
      hold.answer({ decision: "accept" });
      await finish(server.main, turnId, modelMark);
      assert.equal(readFileSync(join(cwd, "big.txt"), "utf8"), content);
    } finally {
      hold.off();
    }
  });

  test("a write outside the workspace asks even in autoEdit, with a reason and no session grant; a symlink out counts as outside", async () => {
    const outside = mkdtempSync(join(tmpdir(), "kc-outside-"));
    const dir = server.project({});
    symlinkSync(outside, join(dir, "escape"));
    const { asked, off } = approver(server.main, () => ({ decision: "accept" }));
    try {
      const thread = await newThread(server.main, "autoEdit", dir);
      await toolTurn(server.main, thread.id, [call("write", { path: join(outside, "direct.txt"), content: "1" })]);
      await toolTurn(server.main, thread.id, [call("write", { path: "escape/linked.txt", content: "2" })]);
      await toolTurn(server.main, thread.id, [call("write", { path: "inside.txt", content: "3" })]);
      assert.equal(asked.length, 2, "only the two writes that land outside ask");
      for (const { params } of asked) {
        assert.match(params.reason ?? "", /outside the workspace/);
        assert.deepEqual(params.decisions, ["accept", "decline", "cancel"]);
      }
      assert.equal(readFileSync(join(outside, "linked.txt"), "utf8"), "2");
      const full = await newThread(server.main, "fullAccess", dir);
      await toolTurn(server.main, full.id, [call("write", { path: join(outside, "full.txt"), content: "4" })]);
      assert.equal(asked.length, 2, "fullAccess asks nothing");
    } finally {
      off();
      rmSync(outside, { recursive: true, force: true });
    }
  });

  test("an extension's replacement for a read-only tool name is an extension tool: it asks", async () => {
    const dir = server.project({
      ".knightcode/extensions/shadow.ts": `export default function (kc: any) {
        kc.registerTool({ name: "ls", description: "lists", parameters: { type: "object", properties: {} },
          async execute() { return { content: [{ type: "text", text: "shadow listing" }], details: {} }; } });
      }`,
    });
    await server.main.request("project/trust/set", { cwd: dir, trusted: true });
    const { asked, off } = approver(server.main, () => ({ decision: "accept" }));
    try {
      const thread = await newThread(server.main, "autoEdit", dir);
      const { items } = await toolTurn(server.main, thread.id, [call("ls", {})]);
      assert.equal(asked.length, 1);
      assert.deepEqual(asked[0]!.params.decisions, ["accept", "acceptForSession", "decline", "cancel"]);
      assert.match(JSON.stringify(items.find((i) => i.type === "toolCall")?.output), /shadow listing/);
    } finally {
      off();
    }
  });

  test("thread/settings/update changes the mode; it is persisted and an invalid stored mode restores as ask", async () => {
    const thread = await newThread(server.main, "fullAccess");
    await server.main.request("thread/settings/update", { threadId: thread.id, approvalMode: "autoEdit" });
    await unload(server.main, thread.id);
    const resumed = await server.main.request("thread/resume", { threadId: thread.id });
    assert.equal(resumed.thread.approvalMode, "autoEdit");
    await unload(server.main, thread.id);
    const path = resumed.thread.sessionFile!;
    const last = readFileSync(path, "utf8").trim().split("\n").at(-1)!;
    const lastId = (JSON.parse(last) as { id: string }).id;
    appendFileSync(path, JSON.stringify({ type: "approval_mode", id: "badmode0001", parentId: lastId, timestamp: Date.now(), mode: "yolo" }) + "\n");
    const again = await server.main.request("thread/resume", { threadId: thread.id });
    assert.equal(again.thread.approvalMode, "ask");
  });
});

/** Unsubscribes the only subscriber and waits for the idle unload (300 ms in this server). */
async function unload(client: TestClient, threadId: string) {
  const mark = client.notifications.length;
  assert.equal((await client.request("thread/unsubscribe", { threadId })).status, "unsubscribed");
  await client.waitForNotification("thread/status/changed", (p) => p.threadId === threadId && p.status.type === "notLoaded", { since: mark });
}

describe("spec: Approvals (decisions)", () => {
  test("accept runs the call once: the same call asks again", async () => {
    const thread = await newThread(server.main);
    const { asked, off } = approver(server.main, () => ({ decision: "accept" }));
    try {
      await toolTurn(server.main, thread.id, [call("write", { path: "once.txt", content: "1" })]);
      await toolTurn(server.main, thread.id, [call("write", { path: "once.txt", content: "2" })]);
      assert.equal(asked.length, 2);
    } finally {
      off();
    }
  });

  test("acceptForSession covers that tool for this load only, never another tool, and ends at unload", async () => {
    const thread = await newThread(server.main);
    const { asked, off } = approver(server.main, (params) => ({ decision: params.tool === "write" ? "acceptForSession" : "accept" }));
    try {
      await toolTurn(server.main, thread.id, [call("write", { path: "s1.txt", content: "1" })]);
      await toolTurn(server.main, thread.id, [call("write", { path: "s2.txt", content: "2" })]);
      assert.deepEqual(
        asked.map((a) => a.params.tool),
        ["write"],
        "the second write runs on the grant",
      );
      await toolTurn(server.main, thread.id, [call("edit", { path: "s2.txt", oldText: "2", newText: "two" })]);
      assert.deepEqual(
        asked.map((a) => a.params.tool),
        ["write", "edit"],
        "the grant is for write alone",
      );
      const other = await newThread(server.main);
      await toolTurn(server.main, other.id, [call("write", { path: "s3.txt", content: "3" })]);
      assert.equal(asked.length, 3, "a grant belongs to one thread");
      await unload(server.main, thread.id);
      await server.main.request("thread/resume", { threadId: thread.id });
      await toolTurn(server.main, thread.id, [call("write", { path: "s4.txt", content: "4" })]);
      assert.equal(asked.length, 4, "the grant ended with the load");
      assert.equal(asked.at(-1)!.params.tool, "write");
    } finally {
      off();
    }
  });

  test("acceptForSession is never offered for bash, and answering it anyway is a decline that grants nothing", async () => {
    const thread = await newThread(server.main);
    const { asked, off } = approver(server.main, () => ({ decision: "acceptForSession" }));
    try {
      const first = call("bash", { command: "touch should-not-exist.txt" });
      const { items, followUp, turn } = await toolTurn(server.main, thread.id, [first]);
      assert.equal(asked[0]!.params.decisions.includes("acceptForSession"), false);
      assert.equal(turn.status, "completed");
      assert.equal(items.find((i) => i.id === first.id)?.status, "declined");
      assert.match(toolResults(followUp).get(first.id!) ?? "", /declined/);
      assert.equal(existsSync(join(cwd, "should-not-exist.txt")), false);
      await toolTurn(server.main, thread.id, [call("bash", { command: "touch should-not-exist.txt" })]);
      assert.equal(asked.length, 2, "no grant was made");
      assert.equal(existsSync(join(cwd, "should-not-exist.txt")), false);
    } finally {
      off();
    }
  });

  test("decline with a message: the call does not run and the message reaches the model as the tool's result", async () => {
    const thread = await newThread(server.main);
    const message = "Use the project-local file instead " + "x".repeat(3900);
    const { off } = approver(server.main, () => ({ decision: "decline", message }));
    try {
      const toolCall = call("write", { path: "/tmp/kc-declined-global.txt", content: "no" });
      const { items, followUp, turn } = await toolTurn(server.main, thread.id, [toolCall]);
      assert.equal(turn.status, "completed", "the agent goes on after a decline");
      assert.equal(items.find((i) => i.id === toolCall.id)?.status, "declined");
      assert.ok((toolResults(followUp).get(toolCall.id!) ?? "").includes(message), "the whole message reaches the model");
      assert.equal(existsSync("/tmp/kc-declined-global.txt"), false);
      const resumed = await ws.request("thread/resume", { threadId: thread.id });
      const historic = (resumed.turns.at(-1)!.items ?? []).find((i) => i.id === toolCall.id) as { status: string };
      assert.equal(historic.status, "declined", "history keeps the decline");
      await ws.request("thread/unsubscribe", { threadId: thread.id });
    } finally {
      off();
    }
  });

  test("an over-long or malformed answer, an unoffered decision or an error answer is a decline", async () => {
    const thread = await newThread(server.main);
    // Answers the schema refuses go out raw, the way a buggy client would send them.
    const answers: unknown[] = [
      { decision: "acceptPrefixForSession" },
      { decision: "yes" },
      { decision: "accept", extra: true, message: 7 },
      "accept",
      null,
      { decision: "decline", message: "m".repeat(5000) },
    ];
    const asked: RequestId[] = [];
    const off = server.main.client.onRequest("item/toolCall/requestApproval", (_params, context) => {
      asked.push(context.requestId);
      return new Promise<never>(() => undefined);
    });
    try {
      for (const [index, answer] of answers.entries()) {
        const toolCall = call("write", { path: `bad-${index}.txt`, content: "x" });
        const { turnId, modelMark } = await startToolTurn(server.main, thread.id, [toolCall]);
        await waitUntil<RequestId>("the approval request", () => asked[index]);
        server.main.sendRaw({ id: asked[index]!, result: answer });
        const { items, followUp } = await finish(server.main, turnId, modelMark);
        assert.equal(items.find((i) => i.id === toolCall.id)?.status, "declined", `answer ${JSON.stringify(answer)}`);
        assert.equal(existsSync(join(cwd, `bad-${index}.txt`)), false);
        if (index === 5) assert.ok((toolResults(followUp).get(toolCall.id!) ?? "").length < 4_500, "the message is cut to 4,000 characters");
      }
    } finally {
      off();
    }
    // A client that answers with an error (here: no handler, so methodNotFound) declines too.
    const toolCall = call("write", { path: "error-answer.txt", content: "x" });
    const { items } = await toolTurn(server.main, thread.id, [toolCall]);
    assert.equal(items.find((i) => i.id === toolCall.id)?.status, "declined");
    assert.equal(existsSync(join(cwd, "error-answer.txt")), false);
  });

  test("cancel blocks the call and stops the turn", async () => {
    const thread = await newThread(server.main);
    const { off } = approver(server.main, () => ({ decision: "cancel" }));
    try {
      const first = call("write", { path: "cancel-1.txt", content: "x" });
      const second = call("write", { path: "cancel-2.txt", content: "y" });
      const { turn, items } = await toolTurn(server.main, thread.id, [first, second], { followUp: false });
      assert.equal(turn.status, "interrupted");
      assert.equal(items.find((i) => i.id === first.id)?.status, "declined");
      assert.equal(existsSync(join(cwd, "cancel-1.txt")), false);
      assert.equal(existsSync(join(cwd, "cancel-2.txt")), false);
    } finally {
      off();
    }
  });

  test("turn/interrupt withdraws an open request with serverRequest/cancelled", async () => {
    const thread = await newThread(server.main);
    const hold = holding(server.main);
    try {
      const mark = server.main.notifications.length;
      const toolCall = call("bash", { command: "touch interrupted.txt" });
      const { turnId, modelMark } = await startToolTurn(server.main, thread.id, [toolCall], { followUp: false });
      await waitUntil("the approval request", () => hold.asked[0]);
      await server.main.request("turn/interrupt", { threadId: thread.id, turnId });
      const { turn } = await finish(server.main, turnId, modelMark);
      assert.equal(turn.status, "interrupted");
      await server.main.waitForNotification("serverRequest/cancelled", (p) => p.requestId === hold.asked[0]!.requestId, { since: mark });
      assert.equal(hold.asked[0]!.withdrawn, true);
      assert.equal(existsSync(join(cwd, "interrupted.txt")), false);
      assert.deepEqual(statuses(server.main, thread.id, mark).at(-1), { type: "idle" });
      // A late answer to the withdrawn request changes nothing and is not an error.
      const errors = server.main.notificationsOf("error").length;
      // Our client drops its handler's answer to a withdrawn request; another client may still send one, so it goes raw.
      hold.answer({ decision: "accept" });
      server.main.sendRaw({ id: hold.asked[0]!.requestId, result: { decision: "accept" } });
      // The server handles a connection's messages in order: once a later request is answered, the late answer was handled.
      await server.main.request("server/diagnostics", {});
      assert.equal(server.main.notificationsOf("error").length, errors);
      assert.equal(existsSync(join(cwd, "interrupted.txt")), false);
    } finally {
      hold.off();
    }
  });
});

describe("spec: Threads and turns (nested calls)", () => {
  test("a tool's calls of other tools are live nested items with parentItemId and no index, gated like the model's; history keeps only the parent", async () => {
    const thread = await newThread(server.main, "autoEdit");
    const { asked, off } = approver(server.main, (params) => ({ decision: params.tool === "bash" ? "decline" : "accept" }));
    try {
      const batch = call("batch", {
        calls: [
          { name: "read", params: { path: "a.txt" } },
          { name: "write", params: { path: "nested.txt", content: "from a nested call" } },
          { name: "bash", params: { command: "touch nested-bash.txt" } },
          { name: "no_such_tool", params: {} },
        ],
      });
      // The batch tool itself asks (an extension tool in autoEdit); its nested write runs, its bash is declined.
      const { turnId, modelMark } = await startToolTurn(server.main, thread.id, [batch]);
      const { items, followUp } = await finish(server.main, turnId, modelMark);
      const started = server.main
        .notificationsOf("item/started")
        .filter((p) => p.turnId === turnId)
        .map((p) => p.item as Record<string, unknown>);
      const nested = started.filter((item) => item.parentItemId === batch.id);
      assert.deepEqual(
        nested.map((item) => item.name),
        ["read", "write", "bash", "no_such_tool"],
      );
      assert.ok(nested.every((item) => item.index === undefined && item.type === "toolCall" && String(item.id).startsWith(`${batch.id}.`)));
      const done = new Map(items.map((item) => [item.id, item]));
      assert.deepEqual(
        nested.map((item) => done.get(String(item.id))?.status),
        ["completed", "completed", "declined", "failed"],
      );
      assert.deepEqual(
        asked.map((a) => a.params.tool),
        ["batch", "bash"],
        "nested calls pass the same gate",
      );
      assert.equal(asked[1]!.params.itemId, nested[2]!.id);
      assert.equal(readFileSync(join(cwd, "nested.txt"), "utf8"), "from a nested call");
      assert.equal(existsSync(join(cwd, "nested-bash.txt")), false);
      const result = toolResults(followUp).get(batch.id!) ?? "";
      assert.match(result, /read: alpha/);
      assert.match(result, /bash failed: The user declined/);
      assert.match(result, /no_such_tool failed: Tool no_such_tool not found/);
      const resumed = await ws.request("thread/resume", { threadId: thread.id });
      const saved = resumed.turns
        .at(-1)!
        .items!.filter((item) => item.type === "toolCall")
        .map((item) => item.id);
      assert.deepEqual(saved, [batch.id], "nested calls are live only");
      await ws.request("thread/unsubscribe", { threadId: thread.id });
    } finally {
      off();
    }
  });
});

describe("spec: Approvals (shell prefixes)", () => {
  test("acceptPrefixForSession grants exactly the offered prefix, for this shell and this load", async () => {
    const dir = server.project({ "tracked.txt": "t\n" });
    execFileSync("git", ["init", "-q"], { cwd: dir });
    const thread = await newThread(server.main, "ask", dir);
    const { asked, off } = approver(server.main, (params) => {
      if (params.prefix === "git status") return { decision: "acceptPrefixForSession" };
      return { decision: "decline" };
    });
    const run = async (command: string) => {
      const toolCall = call("bash", { command });
      const before = asked.length;
      const { items } = await toolTurn(server.main, thread.id, [toolCall]);
      return { asked: asked.length > before ? asked.at(-1)!.params : undefined, status: items.find((i) => i.id === toolCall.id)?.status };
    };
    try {
      const first = await run("git status");
      assert.deepEqual(first.asked?.decisions, ["accept", "acceptPrefixForSession", "decline", "cancel"]);
      assert.equal(first.asked?.prefix, "git status");
      assert.equal(first.status, "completed");
      const covered = await run("git status --short");
      assert.equal(covered.asked, undefined, "git status --short yields exactly the granted prefix");
      assert.equal(covered.status, "completed");
      for (const command of [
        "git reset --hard",
        "git log --oneline",
        "git status; touch pwned.txt",
        "git status && touch pwned.txt",
        '"git" status',
        "git status $(touch pwned.txt)",
        "GIT_DIR=x git status",
        "git status > pwned.txt",
      ]) {
        const result = await run(command);
        assert.ok(result.asked, `${command} is asked about`);
        assert.equal(result.status, "declined", command);
        if (!["git reset --hard", "git log --oneline"].includes(command)) {
          assert.equal(result.asked!.prefix, undefined, `${command} gets no prefix`);
          assert.equal(result.asked!.decisions.includes("acceptPrefixForSession"), false, command);
        }
      }
      assert.equal(existsSync(join(dir, "pwned.txt")), false);
      await unload(server.main, thread.id);
      await server.main.request("thread/resume", { threadId: thread.id });
      const afterUnload = await run("git status --short");
      assert.ok(afterUnload.asked, "the grant ended with the load");
    } finally {
      off();
    }
  });

  test("writes into .git/ or .knightcode/ ask even in autoEdit, and no session grant covers them", async () => {
    const dir = server.project({ "x.txt": "x" });
    execFileSync("git", ["init", "-q"], { cwd: dir });
    const thread = await newThread(server.main, "autoEdit", dir);
    const { asked, off } = approver(server.main, () => ({ decision: "decline" }));
    try {
      for (const path of [".git/config", ".git/hooks/pre-commit", ".knightcode/settings.json", "sub/.GIT/x"]) {
        const toolCall = call("write", { path, content: "[core]\n\tfsmonitor = touch pwned\n" });
        const { items } = await toolTurn(server.main, thread.id, [toolCall]);
        assert.equal(items.find((i) => i.id === toolCall.id)?.status, "declined", path);
        assert.match(asked.at(-1)!.params.reason ?? "", /can change what later commands run/, path);
        assert.deepEqual(asked.at(-1)!.params.decisions, ["accept", "decline", "cancel"]);
      }
      await toolTurn(server.main, thread.id, [call("write", { path: "ok.txt", content: "fine" })]);
      assert.equal(asked.length, 4, "an ordinary write runs without asking in autoEdit");
    } finally {
      off();
    }
  });
});

describe("spec: Approvals (who is asked)", () => {
  test("the initiating subscriber is asked; when it unsubscribes the request moves to the other one", async () => {
    const thread = await newThread(server.main);
    await ws.request("thread/resume", { threadId: thread.id });
    const onMain = holding(server.main);
    const onWs = holding(ws);
    try {
      const wsMark = ws.notifications.length;
      const toolCall = call("write", { path: "moved.txt", content: "m" });
      const { turnId, modelMark } = await startToolTurn(ws, thread.id, [toolCall]);
      await waitUntil("the initiator is asked", () => onWs.asked[0]);
      assert.equal(onMain.asked.length, 0, "one subscriber at a time");
      await ws.request("thread/unsubscribe", { threadId: thread.id });
      await ws.waitForNotification("serverRequest/cancelled", (p) => p.requestId === onWs.asked[0]!.requestId, { since: wsMark });
      await waitUntil("the other subscriber is asked", () => onMain.asked[0]);
      assert.deepEqual(onMain.asked[0]!.params, onWs.asked[0]!.params);
      onMain.answer({ decision: "accept" });
      const { turn } = await finish(server.main, turnId, modelMark);
      assert.equal(turn.status, "completed");
      assert.equal(readFileSync(join(cwd, "moved.txt"), "utf8"), "m");
    } finally {
      onMain.off();
      onWs.off();
    }
  });

  test("a disconnect moves the request; a client that resumes the thread gets it", async () => {
    const thread = await newThread(server.main);
    const second = await server.connectWebSocket(url, TOKEN, "second");
    await second.initialize();
    await second.request("thread/resume", { threadId: thread.id });
    const onMain = holding(server.main);
    const onSecond = holding(second);
    try {
      const mark = server.main.notifications.length;
      const toolCall = call("bash", { command: "touch resumed.txt" });
      const { turnId, modelMark } = await startToolTurn(second, thread.id, [toolCall]);
      await waitUntil("the initiator is asked", () => onSecond.asked[0]);
      await second.client.close();
      await waitUntil("the request moved to the remaining subscriber", () => onMain.asked[0]);
      // A third client resumes the thread while the request is open: it is asked now.
      const third = await server.connectWebSocket(url, TOKEN, "third");
      await third.initialize();
      const onThird = holding(third);
      await third.request("thread/resume", { threadId: thread.id });
      await server.main.waitForNotification("serverRequest/cancelled", (p) => p.requestId === onMain.asked[0]!.requestId, { since: mark });
      await waitUntil("the resuming client is asked", () => onThird.asked[0]);
      assert.equal(onThird.asked[0]!.params.itemId, toolCall.id);
      onThird.answer({ decision: "accept" });
      const { turn } = await finish(server.main, turnId, modelMark);
      assert.equal(turn.status, "completed");
      assert.ok(existsSync(join(cwd, "resumed.txt")));
      await third.client.close();
    } finally {
      onMain.off();
      onSecond.off();
    }
  });

  test("with no subscriber left the request is cancelled: the call is blocked and the turn stops", async () => {
    const thread = await newThread(server.main);
    const hold = holding(server.main);
    try {
      const mark = server.main.notifications.length;
      const toolCall = call("write", { path: "nobody.txt", content: "n" });
      await startToolTurn(server.main, thread.id, [toolCall], { followUp: false });
      await waitUntil("the approval request", () => hold.asked[0]);
      await server.main.request("thread/unsubscribe", { threadId: thread.id });
      await server.main.waitForNotification("serverRequest/cancelled", (p) => p.requestId === hold.asked[0]!.requestId, { since: mark });
      const done = await server.main.waitForNotification("thread/turn/completed", (p) => p.threadId === thread.id, { since: mark });
      assert.equal(done.turn.status, "interrupted");
      assert.equal(existsSync(join(cwd, "nobody.txt")), false);
    } finally {
      hold.off();
    }
  });
});

describe("spec: project/trust/read and project/trust/set", () => {
  test("undecided, needs trust only with project resources; set and read back; bad folders are invalidParams", async () => {
    const plain = server.project({ "x.txt": "x" });
    const withResources = server.project({ ".knightcode/skills/review/SKILL.md": "---\nname: review\ndescription: Reviews\n---\nReview.\n" });
    assert.deepEqual(await server.main.request("project/trust/read", { cwd: plain }), { trusted: null, needsTrust: false });
    assert.deepEqual(await server.main.request("project/trust/read", { cwd: withResources }), { trusted: null, needsTrust: true });
    assert.deepEqual(await server.main.request("project/trust/set", { cwd: withResources, trusted: false }), {});
    assert.deepEqual(await server.main.request("project/trust/read", { cwd: withResources }), { trusted: false, needsTrust: true });
    await server.main.request("project/trust/set", { cwd: withResources, trusted: true });
    assert.deepEqual(await server.main.request("project/trust/read", { cwd: withResources }), { trusted: true, needsTrust: true });
    const file = join(plain, "x.txt");
    for (const [method, params] of [
      ["project/trust/set", { cwd: join(plain, "missing"), trusted: true }],
      ["project/trust/set", { cwd: file, trusted: true }],
      ["project/trust/read", { cwd: join(plain, "missing") }],
      ["project/trust/set", { cwd: "relative/path", trusted: true }],
    ] as const) {
      await assert.rejects(
        server.main.request(method, params as never),
        (e: unknown) => e instanceof AppServerError && e.code === "invalidParams",
        `${method} ${JSON.stringify(params)}`,
      );
    }
    const wrongType = await server.main.rawRequest("project/trust/set", { cwd: plain, trusted: "yes" });
    assert.equal((wrongType.error as { code: string }).code, "invalidParams");
    assert.match((wrongType.error as { message: string }).message, /trusted/);
  });

  test("trust decides whether a project's extension loads; a loaded thread is not rebuilt", async () => {
    const dir = server.project({
      ".knightcode/extensions/greeter.ts": `export default function (kc: any) {
        kc.registerTool({ name: "greet", description: "Greets", parameters: { type: "object", properties: {} },
          async execute() { return { content: [{ type: "text", text: "hello from the project" }], details: {} }; } });
      }`,
    });
    const before = await newThread(server.main, "fullAccess", dir);
    const untrusted = await toolTurn(server.main, before.id, [call("greet", {})]);
    assert.doesNotMatch(JSON.stringify(untrusted.items.find((i) => i.type === "toolCall")?.output), /hello from the project/);
    await server.main.request("project/trust/set", { cwd: dir, trusted: true });
    const still = await toolTurn(server.main, before.id, [call("greet", {})]);
    assert.doesNotMatch(
      JSON.stringify(still.items.find((i) => i.type === "toolCall")?.output),
      /hello from the project/,
      "the loaded thread keeps what it loaded",
    );
    const after = await newThread(server.main, "fullAccess", dir);
    const trusted = await toolTurn(server.main, after.id, [call("greet", {})]);
    assert.match(JSON.stringify(trusted.items.find((i) => i.type === "toolCall")?.output), /hello from the project/);
  });

  test("an undecided project with resources warns with source trust when a thread opens it", async () => {
    const dir = server.project({ ".knightcode/extensions/x.ts": "export default function () {}" });
    const started = await server.main.request("thread/start", { cwd: dir });
    const trust = started.warnings.filter((w) => w.source === "trust");
    assert.equal(trust.length, 1);
    assert.match(trust[0]!.message, /extensions/);
  });
});
