import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { RequestId, ServerRequestParams, ServerRequestResult } from "@knightcode/app-server-protocol";
import { ScriptedModelServer } from "@knightcode/testkit";
import { AppServerError } from "@knightcode/app-server-client";
import { TestServer, startServer, waitUntil, waitUntilAsync, type TestClient } from "../support/harness.js";

type DialogAnswer = ServerRequestResult<"ui/dialog">;
type InputAnswer = ServerRequestResult<"item/toolCall/requestUserInput">;
type ToolCall = { id?: string; name: string; arguments: unknown };

const TOKEN = "dialogs-test-token-0123456789abcdef";
let model: ScriptedModelServer;
let server: TestServer;
let url: string;
let cwd: string;
let extensionDir: string;

/**
 * `ask` opens the dialogs its input lists, one after another, and reports
 * each answer as JSON (undefined shows as null); `/ask-name` opens an input
 * from a command, outside any turn, and remembers the answer in a file.
 */
const DIALOG_EXTENSION = `
import { writeFileSync } from "node:fs";
export default function (kc: any) {
  kc.registerTool({
    name: "ask",
    description: "Opens dialogs",
    parameters: { type: "object", properties: { dialogs: { type: "array" } }, required: ["dialogs"] },
    async execute(_id: string, params: { dialogs: any[] }, _signal: AbortSignal, _update: unknown, ctx: any) {
      const answers = [];
      for (const d of params.dialogs) {
        if (d.kind === "select") answers.push(await ctx.ui.select(d.title, d.options));
        else if (d.kind === "confirm") answers.push(await ctx.ui.confirm(d.title, d.message));
        else if (d.kind === "input") answers.push(await ctx.ui.input(d.title, d.placeholder));
        else answers.push(await ctx.ui.editor(d.title, d.prefill));
      }
      return { content: [{ type: "text", text: JSON.stringify(answers.map((a) => (a === undefined ? null : a))) }], details: {} };
    },
  });
  kc.registerCommand("ask-name", {
    description: "Asks for a name",
    async handler(args: string, ctx: any) {
      const name = await ctx.ui.input("Your name?", "a name");
      writeFileSync(args.trim(), JSON.stringify({ name: name ?? null, hasUI: ctx.hasUI, mode: ctx.mode }));
    },
  });
}
`;

before(async () => {
  model = await ScriptedModelServer.start();
  extensionDir = mkdtempSync(join(tmpdir(), "kc-dialogs-ext-"));
  writeFileSync(join(extensionDir, "dialogs.ts"), DIALOG_EXTENSION);
  server = await startServer({
    model,
    args: ["-e", join(extensionDir, "dialogs.ts"), "--listen", "ws://127.0.0.1:0", "--listen-token", TOKEN],
    env: { KNIGHTCODE_THREAD_IDLE_MS: "300" },
  });
  url = (await server.waitForStderr(/listening on (ws:\S+)/))[1]!;
  cwd = server.project({ "a.txt": "alpha\n" });
  // Outside plan mode a thread offers ask_user only when defaultTools names it.
  writeFileSync(join(server.agentDir, "settings.json"), JSON.stringify({ defaultTools: ["+ask_user"] }));
});
after(async () => {
  if (process.env.SHOW_STDERR) process.stderr.write(server.stderr);
  await server.close();
  await model.close();
  rmSync(extensionDir, { recursive: true, force: true });
});

interface Asked<P> {
  params: P;
  requestId: RequestId;
  withdrawn: boolean;
}

/** Holds every request of `method` a client gets until the test answers it. */
function holding<M extends "ui/dialog" | "item/toolCall/requestUserInput">(client: TestClient, method: M) {
  const asked: Asked<ServerRequestParams<M>>[] = [];
  const waiting: ((answer: ServerRequestResult<M>) => void)[] = [];
  const off = client.client.onRequest(method, (params, context) => {
    const entry: Asked<ServerRequestParams<M>> = { params, requestId: context.requestId, withdrawn: false };
    asked.push(entry);
    context.signal.addEventListener("abort", () => (entry.withdrawn = true));
    return new Promise<ServerRequestResult<M>>((resolve) => waiting.push(resolve));
  });
  return {
    asked,
    off,
    answer(answer: ServerRequestResult<M>, index = waiting.length - 1) {
      waiting[index]!(answer);
    },
  };
}

let callSeq = 0;
const call = (name: string, args: unknown): ToolCall => ({ id: `call_${++callSeq}`, name, arguments: args });

async function newThread(client: TestClient, approvalMode: "ask" | "autoEdit" | "fullAccess" = "fullAccess") {
  return (await client.request("thread/start", { cwd, approvalMode })).thread;
}

async function startToolTurn(client: TestClient, threadId: string, calls: ToolCall[], options: { followUp?: boolean } = {}) {
  if (options.followUp === false) model.enqueue({ toolCalls: calls });
  else model.enqueue({ toolCalls: calls }, { text: "done" });
  const mark = client.notifications.length;
  const modelMark = model.requests.length;
  await client.request("turn/start", { threadId, text: "go" });
  const started = await client.waitForNotification("turn/started", (p) => p.threadId === threadId, { since: mark });
  // turn/started can overtake the model request it leads to: callers read that request.
  await waitUntil("the turn's model request", () => model.requests[modelMark]);
  return { turnId: started.turn.id, modelMark };
}

async function finish(client: TestClient, turnId: string) {
  const completed = await client.waitForNotification("thread/turn/completed", (p) => p.turn.id === turnId, { timeoutMs: 20_000 });
  const items = client
    .notificationsOf("item/completed")
    .filter((p) => p.turnId === turnId)
    .map((p) => p.item as { id: string; type: string; status?: string; output?: unknown });
  return { turn: completed.turn, items };
}

/** The text of the tool result the model was sent for `callId`, in request `index` or later. */
function toolResult(callId: string, from = 0): string | undefined {
  for (const request of model.requests.slice(from)) {
    for (const message of (request.body.messages ?? []) as { role: string; tool_call_id?: string; content: unknown }[]) {
      if (message.role === "tool" && message.tool_call_id === callId) {
        return typeof message.content === "string" ? message.content : JSON.stringify(message.content);
      }
    }
  }
  return undefined;
}

function statuses(client: TestClient, threadId: string, since: number) {
  return client.notifications
    .slice(since)
    .filter((n) => n.method === "thread/status/changed" && (n.params as { threadId: string }).threadId === threadId)
    .map((n) => (n.params as { status: { type: string; waitingOn?: string[] } }).status);
}

describe("spec: Dialogs and extension UI (ui/dialog)", () => {
  test("select, confirm, input and editor reach the client with their fields; the answers come back to the extension", async () => {
    const thread = await newThread(server.main);
    const hold = holding(server.main, "ui/dialog");
    try {
      const mark = server.main.notifications.length;
      const dialogs = [
        { kind: "select", title: "Pick \u001b[31mone\u001b[0m\nplease", options: ["red", "green"] },
        { kind: "confirm", title: "Sure?", message: "This deletes\nthree files." },
        { kind: "input", title: "Name?", placeholder: "a name" },
        { kind: "editor", title: "Edit", prefill: "line 1\nline 2" },
      ];
      const toolCall = call("ask", { dialogs });
      const { turnId, modelMark } = await startToolTurn(server.main, thread.id, [toolCall]);
      const answers: DialogAnswer[] = [{ value: "green" }, { confirmed: true }, { value: "Ada" }, { value: "line 1\nline 2\nline 3" }];
      for (let i = 0; i < answers.length; i++) {
        await waitUntil(`dialog ${i + 1}`, () => hold.asked[i]);
        if (i === 0) {
          assert.deepEqual(statuses(server.main, thread.id, mark).at(-1), { type: "active", waitingOn: ["dialog"] });
        }
        hold.answer(answers[i]!, i);
      }
      const [select, confirm, input, editor] = hold.asked.map((a) => a.params);
      assert.deepEqual(select, { threadId: thread.id, turnId, kind: "select", title: "Pick one please", options: ["red", "green"] });
      assert.deepEqual(confirm, { threadId: thread.id, turnId, kind: "confirm", title: "Sure?", message: "This deletes\nthree files." });
      assert.deepEqual(input, { threadId: thread.id, turnId, kind: "input", title: "Name?", placeholder: "a name" });
      assert.deepEqual(editor, { threadId: thread.id, turnId, kind: "editor", title: "Edit", prefill: "line 1\nline 2" });
      const { turn } = await finish(server.main, turnId);
      assert.equal(turn.status, "completed");
      assert.equal(toolResult(toolCall.id!, modelMark), JSON.stringify(["green", true, "Ada", "line 1\nline 2\nline 3"]));
      // The first opening and the last closing of the dialog show in the status, and it ends idle.
      const seen = statuses(server.main, thread.id, mark);
      assert.ok(seen.some((s) => s.type === "active" && s.waitingOn?.includes("dialog")));
      assert.deepEqual(seen.at(-1), { type: "idle" });
      server.assertNoSchemaViolations();
    } finally {
      hold.off();
    }
  });

  test("cancels: {} and {confirmed: false} cancel, and a select value that was not offered counts as a cancel", async () => {
    const thread = await newThread(server.main);
    const hold = holding(server.main, "ui/dialog");
    try {
      const dialogs = [
        { kind: "select", title: "Pick", options: ["a", "b"] },
        { kind: "select", title: "Pick", options: ["a", "b"] },
        { kind: "confirm", title: "Sure?", message: "m" },
        { kind: "confirm", title: "Sure?", message: "m" },
        { kind: "input", title: "Name?" },
        { kind: "editor", title: "Edit" },
      ];
      const toolCall = call("ask", { dialogs });
      const { turnId, modelMark } = await startToolTurn(server.main, thread.id, [toolCall]);
      const answers: DialogAnswer[] = [{ value: "c" }, {}, { confirmed: false }, {}, {}, {}];
      for (let i = 0; i < answers.length; i++) {
        await waitUntil(`dialog ${i + 1}`, () => hold.asked[i]);
        hold.answer(answers[i]!, i);
      }
      assert.equal((hold.asked[4]!.params as { placeholder?: string }).placeholder, undefined);
      const { turn } = await finish(server.main, turnId);
      assert.equal(turn.status, "completed");
      assert.equal(toolResult(toolCall.id!, modelMark), JSON.stringify([null, null, false, false, null, null]));
    } finally {
      hold.off();
    }
  });

  test("a command's dialog outside a turn has no turnId; the thread waits on it; the extension sees a desktop UI", async () => {
    const thread = await newThread(server.main);
    const hold = holding(server.main, "ui/dialog");
    try {
      const out = join(cwd, "ask-name.json");
      const mark = server.main.notifications.length;
      const started = server.main.request("turn/start", { threadId: thread.id, text: `/ask-name ${out}` });
      await waitUntil("the dialog", () => hold.asked[0]);
      assert.deepEqual(hold.asked[0]!.params, { threadId: thread.id, kind: "input", title: "Your name?", placeholder: "a name" });
      await waitUntil("the waiting status", () => statuses(server.main, thread.id, mark).find((s) => s.type === "active" && s.waitingOn?.includes("dialog")));
      hold.answer({ value: "Grace" });
      assert.equal((await started).status, "handled");
      assert.deepEqual(JSON.parse(readFileSync(out, "utf8")), { name: "Grace", hasUI: true, mode: "desktop" });
      await waitUntil("idle", () => statuses(server.main, thread.id, mark).at(-1)?.type === "idle");
    } finally {
      hold.off();
    }
  });
});

describe("spec: Ownership, unloading, and shutdown (dialogs)", () => {
  test("stdin EOF withdraws an open dialog first, before the start waiting on it is answered, and the command finishes", async () => {
    const own = await startServer({ model, args: ["-e", join(extensionDir, "dialogs.ts"), "--listen", "ws://127.0.0.1:0", "--listen-token", TOKEN] });
    const wsUrl = (await own.waitForStderr(/listening on (ws:\S+)/))[1]!;
    const client = await own.connectWebSocket(wsUrl, TOKEN, "asked");
    await client.initialize();
    const hold = holding(client, "ui/dialog");
    try {
      const thread = (await client.request("thread/start", { cwd, approvalMode: "fullAccess" })).thread;
      const out = join(cwd, "shutdown-name.json");
      const pending = client.rawRequest("turn/start", { threadId: thread.id, text: `/ask-name ${out}` }, "ask-at-shutdown");
      await waitUntil("the dialog", () => hold.asked[0]);
      // The stdio client goes away; the WebSocket client that is asked stays connected.
      own.transport.child.stdin!.end();
      const answer = await pending;
      // Interrupted during its extension command, as the spec says of a start; it launched nothing.
      assert.deepEqual(answer.result, { status: "cancelled", threadId: thread.id }, JSON.stringify(answer));
      // The dialog was withdrawn as shutdown began, before that answer, not at the deadline when the threads unload.
      const before = client.notificationsBefore.get("ask-at-shutdown")!;
      assert.ok(
        client.notifications
          .slice(0, before)
          .some((n) => n.method === "serverRequest/cancelled" && (n.params as { requestId: RequestId }).requestId === hold.asked[0]!.requestId),
        "serverRequest/cancelled came before the answer",
      );
      const exit = await own.waitForExit();
      assert.equal(exit.code, 0);
      // The command went on with no answer and finished before the server exited.
      assert.deepEqual(JSON.parse(readFileSync(out, "utf8")), { name: null, hasUI: true, mode: "desktop" });
    } finally {
      hold.off();
      await own.close().catch(() => undefined);
    }
  });
});

describe("spec: Dialogs and extension UI (who is asked)", () => {
  test("the initiator is asked first; unsubscribe and disconnect move the dialog; a resuming client gets it", async () => {
    const thread = await newThread(server.main);
    const second = await server.connectWebSocket(url, TOKEN, "second");
    await second.initialize();
    await second.request("thread/resume", { threadId: thread.id });
    const onMain = holding(server.main, "ui/dialog");
    const onSecond = holding(second, "ui/dialog");
    try {
      const mark = server.main.notifications.length;
      const toolCall = call("ask", { dialogs: [{ kind: "select", title: "Where?", options: ["here", "there"] }] });
      const { turnId, modelMark } = await startToolTurn(second, thread.id, [toolCall]);
      await waitUntil("the initiator is asked", () => onSecond.asked[0]);
      assert.equal(onMain.asked.length, 0, "one subscriber at a time");
      // The initiator disconnects: the dialog moves to the one left.
      await second.client.close();
      await waitUntil("the dialog moved", () => onMain.asked[0]);
      assert.deepEqual(onMain.asked[0]!.params, onSecond.asked[0]!.params);
      // A third client resumes: it is asked now, and the main connection's request is withdrawn.
      const third = await server.connectWebSocket(url, TOKEN, "third");
      await third.initialize();
      const onThird = holding(third, "ui/dialog");
      await third.request("thread/resume", { threadId: thread.id });
      await server.main.waitForNotification("serverRequest/cancelled", (p) => p.requestId === onMain.asked[0]!.requestId, { since: mark });
      await waitUntil("the resuming client is asked", () => onThird.asked[0]);
      // It unsubscribes: back to the main connection.
      await third.request("thread/unsubscribe", { threadId: thread.id });
      await waitUntil("the dialog moved back", () => onMain.asked[1]);
      onMain.answer({ value: "there" }, 1);
      const { turn } = await finish(server.main, turnId);
      assert.equal(turn.status, "completed");
      assert.equal(toolResult(toolCall.id!, modelMark), JSON.stringify(["there"]));
      onThird.off();
      third.assertNoSchemaViolations();
      await third.client.close();
    } finally {
      onMain.off();
      onSecond.off();
    }
  });

  test("turn/interrupt withdraws an open dialog with serverRequest/cancelled; a late answer changes nothing", async () => {
    const thread = await newThread(server.main);
    const hold = holding(server.main, "ui/dialog");
    try {
      const mark = server.main.notifications.length;
      const toolCall = call("ask", { dialogs: [{ kind: "confirm", title: "Deploy?", message: "to production" }] });
      const { turnId } = await startToolTurn(server.main, thread.id, [toolCall], { followUp: false });
      await waitUntil("the dialog", () => hold.asked[0]);
      await server.main.request("turn/interrupt", { threadId: thread.id, turnId });
      await server.main.waitForNotification("serverRequest/cancelled", (p) => p.requestId === hold.asked[0]!.requestId, { since: mark });
      const { turn } = await finish(server.main, turnId);
      assert.equal(turn.status, "interrupted");
      assert.equal(hold.asked[0]!.withdrawn, true);
      const errors = server.main.notificationsOf("error").length;
      server.main.sendRaw({ id: hold.asked[0]!.requestId, result: { confirmed: true } });
      await server.main.request("server/diagnostics", {});
      assert.equal(server.main.notificationsOf("error").length, errors);
      assert.deepEqual(statuses(server.main, thread.id, mark).at(-1), { type: "idle" });
    } finally {
      hold.off();
    }
  });

  test("with nobody left to ask the dialog resolves as cancelled and the turn goes on", async () => {
    const thread = await newThread(server.main);
    const hold = holding(server.main, "ui/dialog");
    try {
      const mark = server.main.notifications.length;
      const toolCall = call("ask", {
        dialogs: [
          { kind: "confirm", title: "Go?", message: "m" },
          { kind: "input", title: "Name?" },
        ],
      });
      const { turnId, modelMark } = await startToolTurn(server.main, thread.id, [toolCall]);
      await waitUntil("the dialog", () => hold.asked[0]);
      await server.main.request("thread/unsubscribe", { threadId: thread.id });
      await server.main.waitForNotification("serverRequest/cancelled", (p) => p.requestId === hold.asked[0]!.requestId, { since: mark });
      const done = await server.main.waitForNotification("thread/turn/completed", (p) => p.turn.id === turnId, { since: mark });
      assert.equal(done.turn.status, "completed");
      assert.equal(hold.asked.length, 1, "the second dialog had nobody to ask");
      assert.equal(toolResult(toolCall.id!, modelMark), JSON.stringify([false, null]));
    } finally {
      hold.off();
    }
  });
});

const QUESTIONS = [
  { id: "db", question: "Which database?", options: [{ label: "Postgres (Recommended)", description: "A server" }, { label: "SQLite" }] },
  { id: "name", question: "Project name?", options: [{ label: "kc" }] },
  { id: "ci", question: "Add CI?", options: [{ label: "Yes" }, { label: "No" }] },
];

describe("spec: Dialogs and extension UI (ask_user)", () => {
  test("ask_user is offered to the model; its questions come all at once with the call's itemId; the answers reach the model", async () => {
    const thread = await newThread(server.main, "ask");
    const hold = holding(server.main, "item/toolCall/requestUserInput");
    try {
      const mark = server.main.notifications.length;
      const toolCall = call("ask_user", { questions: QUESTIONS });
      const { turnId, modelMark } = await startToolTurn(server.main, thread.id, [toolCall]);
      const tools = (model.requests[modelMark]!.body.tools as { function: { name: string } }[]).map((t) => t.function.name);
      assert.ok(tools.includes("ask_user"), `ask_user offered: ${tools.join(", ")}`);
      await waitUntil("the questions", () => hold.asked[0]);
      assert.deepEqual(hold.asked[0]!.params, {
        threadId: thread.id,
        turnId,
        itemId: toolCall.id,
        questions: [
          { id: "db", text: "Which database?", options: [{ label: "Postgres (Recommended)", description: "A server" }, { label: "SQLite" }] },
          { id: "name", text: "Project name?", options: [{ label: "kc" }] },
          { id: "ci", text: "Add CI?", options: [{ label: "Yes" }, { label: "No" }] },
        ],
      });
      assert.deepEqual(statuses(server.main, thread.id, mark).at(-1), { type: "active", waitingOn: ["dialog"] });
      // No approval was asked: ask_user runs in every mode.
      hold.answer({ answers: { db: { label: "SQLite", note: "keep it small" }, name: { other: "knight" } } });
      const { turn, items } = await finish(server.main, turnId);
      assert.equal(turn.status, "completed");
      assert.equal(items.find((i) => i.id === toolCall.id)?.status, "completed");
      assert.equal(
        toolResult(toolCall.id!, modelMark),
        "Q: Which database?\nA: SQLite (note: keep it small)\n\nQ: Project name?\nA: (in their own words) knight\n\nQ: Add CI?\nA: (skipped)",
      );
    } finally {
      hold.off();
    }
  });

  test("a label that was not offered fails the call, the model hears why, and the turn goes on", async () => {
    const thread = await newThread(server.main);
    const hold = holding(server.main, "item/toolCall/requestUserInput");
    try {
      const toolCall = call("ask_user", { questions: QUESTIONS });
      const { turnId, modelMark } = await startToolTurn(server.main, thread.id, [toolCall]);
      await waitUntil("the questions", () => hold.asked[0]);
      hold.answer({ answers: { db: { label: "MySQL" } } });
      const { turn, items } = await finish(server.main, turnId);
      assert.equal(turn.status, "completed");
      assert.equal(items.find((i) => i.id === toolCall.id)?.status, "failed");
      assert.match(toolResult(toolCall.id!, modelMark) ?? "", /names the option "MySQL", which was not offered/);
    } finally {
      hold.off();
    }
  });

  test("malformed replies and an error answer fail the call with the reason; nothing is picked for the user", async () => {
    const thread = await newThread(server.main);
    const cases: { reply: unknown; reason: RegExp }[] = [
      { reply: { answers: { nope: { label: "kc" } } }, reason: /there is no question "nope"/ },
      { reply: { answers: { db: { label: "SQLite", other: "both" } } }, reason: /both its own words and an option/ },
      { reply: { answers: { db: { other: 42 } } }, reason: /is not text/ },
      { reply: { answers: [] }, reason: /answers is not an object/ },
      { reply: { answers: {}, extra: true }, reason: /unknown field "extra"/ },
      { reply: { answers: { db: { label: "SQLite", note: "x".repeat(16_001) } } }, reason: /longer than 16000 characters/ },
    ];
    let seen = 0;
    const off = server.main.client.onRequest("item/toolCall/requestUserInput", () => {
      const next = cases[seen++];
      if (!next) throw new Error("this client cannot show questions");
      return next.reply as InputAnswer;
    });
    try {
      for (const { reason } of [...cases, { reason: /answered with an error/ }]) {
        const toolCall = call("ask_user", { questions: QUESTIONS });
        const { turnId, modelMark } = await startToolTurn(server.main, thread.id, [toolCall]);
        const { turn, items } = await finish(server.main, turnId);
        assert.equal(turn.status, "completed");
        assert.equal(items.find((i) => i.id === toolCall.id)?.status, "failed");
        assert.match(toolResult(toolCall.id!, modelMark) ?? "", reason);
      }
    } finally {
      off();
      // This client broke the schema on purpose; what it sent is the test's, not the server's.
      const ours = server.main.schemaViolations.filter((v) => v.startsWith("stdio sent:"));
      // Four of the replies do not fit the schema (the unknown id and the long note do).
      assert.equal(ours.length, 4, ours.join("\n"));
      server.main.schemaViolations.splice(0, server.main.schemaViolations.length, ...server.main.schemaViolations.filter((v) => !ours.includes(v)));
    }
  });

  test("{} dismisses the questions and stops the turn: the model is not called again", async () => {
    const thread = await newThread(server.main);
    const hold = holding(server.main, "item/toolCall/requestUserInput");
    try {
      const toolCall = call("ask_user", { questions: QUESTIONS });
      const { turnId, modelMark } = await startToolTurn(server.main, thread.id, [toolCall], { followUp: false });
      await waitUntil("the questions", () => hold.asked[0]);
      hold.answer({});
      const { turn } = await finish(server.main, turnId);
      assert.equal(turn.status, "interrupted");
      assert.equal(model.requests.length, modelMark + 1, "no request after the dismissal");
    } finally {
      hold.off();
    }
  });

  test("the questions move like approvals: an unsubscribe moves them to the other subscriber", async () => {
    const thread = await newThread(server.main);
    const second = await server.connectWebSocket(url, TOKEN, "second-q");
    await second.initialize();
    await second.request("thread/resume", { threadId: thread.id });
    const onMain = holding(server.main, "item/toolCall/requestUserInput");
    const onSecond = holding(second, "item/toolCall/requestUserInput");
    try {
      const toolCall = call("ask_user", { questions: QUESTIONS.slice(0, 1) });
      const { turnId, modelMark } = await startToolTurn(second, thread.id, [toolCall]);
      await waitUntil("the initiator is asked", () => onSecond.asked[0]);
      await second.request("thread/unsubscribe", { threadId: thread.id });
      await waitUntil("the questions moved", () => onMain.asked[0]);
      assert.equal(onSecond.asked[0]!.withdrawn, true);
      onMain.answer({ answers: { db: { label: "Postgres (Recommended)" } } });
      const { turn } = await finish(server.main, turnId);
      assert.equal(turn.status, "completed");
      assert.match(toolResult(toolCall.id!, modelMark) ?? "", /A: Postgres \(Recommended\)/);
      await second.client.close();
    } finally {
      onMain.off();
      onSecond.off();
    }
  });
});

describe("spec: Dialogs and extension UI (plan mode)", () => {
  test("under plan mode a write is refused; the plan is reviewed (revise, then approve) and after approval the write runs", async () => {
    const thread = await newThread(server.main);
    assert.equal(thread.planMode, false);
    const mark = server.main.notifications.length;
    const updated = await server.main.request("thread/settings/update", { threadId: thread.id, planMode: true });
    assert.equal(updated.thread.planMode, true);
    await server.main.waitForNotification("thread/planMode/updated", (p) => p.threadId === thread.id && p.planMode, { since: mark });
    const hold = holding(server.main, "ui/dialog");
    try {
      const early = call("write", { path: "plan-early.txt", content: "too soon" });
      const bash = call("bash", { command: "touch plan-bash.txt" });
      const look = call("read", { path: "a.txt" });
      const firstPlan = call("submit_plan", { plan: "1. Write plan.txt" });
      const secondPlan = call("submit_plan", { plan: "1. Write plan.txt\n2. Check it" });
      const late = call("write", { path: "plan.txt", content: "planned" });
      model.enqueue({ toolCalls: [early, bash, look] }, { toolCalls: [firstPlan] }, { toolCalls: [secondPlan] }, { toolCalls: [late] }, { text: "done" });
      const modelMark = model.requests.length;
      await server.main.request("turn/start", { threadId: thread.id, text: "plan it" });
      const prompt = (await model.waitForRequests(modelMark + 1))[modelMark]!;
      assert.match(JSON.stringify(prompt.body.messages), /Plan mode is on/);
      const offered = (prompt.body.tools as { function: { name: string } }[]).map((t) => t.function.name);
      assert.ok(offered.includes("submit_plan") && offered.includes("ask_user"), `plan mode offers submit_plan and ask_user: ${offered.join(", ")}`);
      // The first review: Revise, then the feedback in an editor.
      await waitUntil("the review", () => hold.asked[0]);
      const review = hold.asked[0]!.params;
      assert.equal(review.kind, "select");
      assert.deepEqual((review as { options: string[] }).options, ["Approve", "Revise"]);
      assert.equal(existsSync(join(cwd, "plan-early.txt")), false, "the write before approval did not run");
      assert.equal(existsSync(join(cwd, "plan-bash.txt")), false, "nor did the command");
      assert.match(toolResult(early.id!) ?? "", /Plan mode is on/);
      assert.match(toolResult(look.id!) ?? "", /alpha/, "read-only tools run");
      hold.answer({ value: "Revise" }, 0);
      await waitUntil("the feedback editor", () => hold.asked[1]);
      assert.equal(hold.asked[1]!.params.kind, "editor");
      hold.answer({ value: "Also check it." }, 1);
      await waitUntil("the second review", () => hold.asked[2]);
      assert.match(toolResult(firstPlan.id!) ?? "", /did not approve the plan\.\n\nFeedback: Also check it\./);
      const approveMark = server.main.notifications.length;
      hold.answer({ value: "Approve" }, 2);
      const turnId = (await server.main.waitForNotification("turn/started", (p) => p.threadId === thread.id, { since: mark })).turn.id;
      const { turn } = await finish(server.main, turnId);
      assert.equal(turn.status, "completed");
      await server.main.waitForNotification("thread/planMode/updated", (p) => p.threadId === thread.id && !p.planMode, { since: approveMark });
      assert.match(toolResult(secondPlan.id!) ?? "", /The user approved the plan\. Carry it out now\./);
      assert.equal(readFileSync(join(cwd, "plan.txt"), "utf8"), "planned", "after approval the write ran under fullAccess");
      // The model's instructions follow from its next turn: plan mode is gone from them.
      model.enqueue({ text: "ok" });
      const nextMark = server.main.notifications.length;
      await server.main.request("turn/start", { threadId: thread.id, text: "thanks" });
      await server.main.waitForNotification("thread/turn/completed", (p) => p.threadId === thread.id, { since: nextMark });
      assert.doesNotMatch(JSON.stringify(model.requests.at(-1)!.body.messages[0]), /Plan mode is on/, "the instructions went with plan mode");
    } finally {
      hold.off();
    }
  });

  test("/plan turns plan mode on, /plan off turns it off, and /plan <task> starts the task's turn in plan mode", async () => {
    const thread = await newThread(server.main);
    const mark = server.main.notifications.length;
    const on = await server.main.request("turn/start", { threadId: thread.id, text: "/plan", requestId: "plan-1" });
    assert.deepEqual(on, { status: "handled", threadId: thread.id, requestId: "plan-1" });
    await server.main.waitForNotification("thread/planMode/updated", (p) => p.threadId === thread.id && p.planMode, { since: mark });
    const off = await server.main.request("turn/start", { threadId: thread.id, text: "/plan off" });
    assert.equal(off.status, "handled");
    await server.main.waitForNotification("thread/planMode/updated", (p) => p.threadId === thread.id && !p.planMode, { since: mark });
    const { commands } = await server.main.request("command/list", { threadId: thread.id });
    assert.ok(commands.some((c) => c.name === "plan"));

    const toolCall = call("write", { path: "plan-task.txt", content: "x" });
    model.enqueue({ toolCalls: [toolCall] }, { text: "I will plan first" });
    const modelMark = model.requests.length;
    const started = await server.main.request("turn/start", { threadId: thread.id, text: "/plan add a login page" });
    assert.equal(started.status, "started");
    const done = await server.main.waitForNotification("thread/turn/completed", (p) => p.threadId === thread.id, { since: mark });
    assert.equal(done.turn.status, "completed");
    const first = model.requests[modelMark]!;
    assert.match(JSON.stringify(first.body.messages[0]), /Plan mode is on/, "the turn's instructions say plan mode is on");
    assert.deepEqual(first.body.messages.at(-1).content, [{ type: "text", text: "add a login page" }], "the task is the turn's input, without the command");
    assert.equal(existsSync(join(cwd, "plan-task.txt")), false);
    const read = await server.main.request("thread/settings/update", { threadId: thread.id });
    assert.equal(read.thread.planMode, true);
  });

  test("plan mode survives a resume in a new process", async () => {
    const thread = await newThread(server.main);
    await server.main.request("thread/settings/update", { threadId: thread.id, planMode: true });
    const other = new TestServer({ model, home: server.home });
    try {
      await other.main.initialize();
      // The first server still owns the thread: release it first.
      await server.main.request("thread/unsubscribe", { threadId: thread.id });
      const resumed = await waitForResume(other.main, thread.id);
      assert.equal(resumed.thread.planMode, true);
      const toolCall = call("write", { path: "after-resume.txt", content: "x" });
      model.enqueue({ toolCalls: [toolCall] }, { text: "done" });
      await other.main.request("turn/start", { threadId: thread.id, text: "write it" });
      const done = await other.main.waitForNotification("thread/turn/completed", (p) => p.threadId === thread.id);
      assert.equal(done.turn.status, "completed");
      assert.equal(existsSync(join(cwd, "after-resume.txt")), false);
      assert.match(toolResult(toolCall.id!) ?? "", /Plan mode is on/);
      other.assertNoSchemaViolations();
    } finally {
      await other.close();
    }
  });
});

/** Resumes once the first server has let the thread go (it unloads after the unsubscribe, on its idle clock). */
function waitForResume(client: TestClient, threadId: string) {
  return waitUntilAsync(
    "the first server to release the thread",
    async () => {
      try {
        return await client.request("thread/resume", { threadId });
      } catch (error) {
        if (error instanceof AppServerError && error.code === "threadLockedElsewhere") return undefined;
        throw error;
      }
    },
    15_000,
  );
}
