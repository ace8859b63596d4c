import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { ServerNotificationParams } from "@knightcode/app-server-protocol";
import { ScriptedModelServer, initRepo, type RecordedRequest, type ScriptedResponse } from "@knightcode/testkit";
import { TestServer, waitUntil, type TestClient } from "../support/harness.js";
import { approver } from "../support/tool-turns.js";

let model: ScriptedModelServer;
let server: TestServer;
let cwd: string;

/** Every message text of a model request, user and tool results alike. */
function texts(request: RecordedRequest): string[] {
  const messages = (request.body.messages ?? []) as Array<{ role: string; content?: unknown }>;
  return messages.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content ?? "")));
}
const lastUser = (request: RecordedRequest): string => {
  const messages = (request.body.messages ?? []) as Array<{ role: string; content?: unknown }>;
  const user = messages.filter((m) => m.role === "user").at(-1);
  return typeof user?.content === "string" ? user.content : JSON.stringify(user?.content ?? "");
};
/** A tool call a turn completed, as its item/completed carried it. */
type CompletedCall = { id: string; status: string; output?: string; subagents?: Array<{ threadId: string; name?: string; status: string }> };
const callsOf = (client: TestClient, turnId: string): CompletedCall[] =>
  client
    .notificationsOf("item/completed")
    .filter((p) => p.turnId === turnId && p.item.type === "toolCall")
    .map((p) => p.item as CompletedCall);
const hasToolResults = (request: RecordedRequest): boolean => ((request.body.messages ?? []) as Array<{ role: string }>).some((m) => m.role === "tool");
const offered = (request: RecordedRequest): string[] => ((request.body.tools ?? []) as Array<{ function: { name: string } }>).map((t) => t.function.name);

/**
 * The scripted model for every thread at once, since parent and children
 * ask it concurrently: each reply is chosen by what the request says, not
 * by its order. `routes` maps a marker in the last user message to the
 * replies of that conversation, first without and then with tool results.
 */
const routes = new Map<string, { first: ScriptedResponse; afterTools: ScriptedResponse }>();
function route(request: RecordedRequest): ScriptedResponse {
  const user = lastUser(request);
  for (const [marker, replies] of routes) if (user.includes(marker)) return hasToolResults(request) ? replies.afterTools : replies.first;
  return { status: 500, body: { error: { message: `no route for ${user.slice(0, 80)}` } } };
}

before(async () => {
  model = await ScriptedModelServer.start();
  model.setFallback(route);
  server = new TestServer({ model });
  // The client opts in: it hears the children through its subscription to the parent.
  await server.main.client.initialize({ clientInfo: { name: "subagents-test" }, capabilities: { subagents: true } });
  cwd = server.project({ "a.txt": "alpha\n" });
});
after(async () => {
  if (process.env.SHOW_STDERR) process.stderr.write(server.stderr);
  await server.close();
  await model.close();
});

async function runParentTurn(client: TestClient, threadId: string, text: string) {
  const mark = client.notifications.length;
  await client.request("turn/start", { threadId, text });
  const started = await client.waitForNotification("turn/started", (p) => p.threadId === threadId, { since: mark });
  const completed = await client.waitForNotification("turn/completed", (p) => p.turn.id === started.turn.id, { since: mark, timeoutMs: 60_000 });
  return { mark, turnId: started.turn.id, completed };
}

describe("sub-agents", () => {
  test("a parent starts three sub-agents at once, waits for all, and answers with their results; each child is a thread", async () => {
    const client = server.main;
    routes.set("DELEGATE-3", {
      first: {
        toolCalls: ["a", "b", "c"].map((name) => ({
          id: `call_start_${name}`,
          name: "agent_start",
          arguments: { task: `TASK-${name} count the letters`, name },
        })),
      },
      afterTools: { text: "all three answered" },
    });
    // Every child's answer waits until all three asked: calls made one after another would never get there.
    let release!: () => void;
    const allAsked = new Promise<void>((resolve) => (release = resolve));
    for (const name of ["a", "b", "c"])
      routes.set(`TASK-${name}`, { first: { text: ["", `answer of ${name}`], pauseAfter: 1, gate: allAsked }, afterTools: { text: "unused" } });
    const { thread } = await client.request("thread/start", { cwd, approvalMode: "fullAccess" });
    const childRequests = () => model.requests.filter((r) => /TASK-[abc]/.test(lastUser(r)));
    const running = runParentTurn(client, thread.id, "DELEGATE-3 please");
    await waitUntil("all three children asking the model at once", () => childRequests().length === 3 || undefined, 30_000);
    release();
    const { mark, turnId, completed } = await running;
    assert.equal(completed.turn.status, "completed");
    assert.equal(childRequests().length, 3);
    // A child is offered none of the sub-agent tools; the parent is.
    assert.ok(offered(model.requests.find((r) => lastUser(r).includes("DELEGATE-3"))!).includes("agent_start"));
    assert.ok(childRequests().every((r) => !offered(r).some((name) => name.startsWith("agent_"))));

    // The parent's items: one per call, completed, naming its child, with the child's answer in the output.
    const calls = callsOf(client, turnId);
    assert.deepEqual(calls.map((c) => c.id).sort(), ["call_start_a", "call_start_b", "call_start_c"]);
    const children = new Map<string, string>();
    for (const call of calls) {
      const name = call.id.slice(-1);
      assert.equal(call.subagents?.length, 1);
      assert.equal(call.subagents![0]!.name, name);
      assert.equal(call.subagents![0]!.status, "completed");
      assert.match(call.output ?? "", new RegExp(`answer of ${name}`));
      children.set(name, call.subagents![0]!.threadId);
    }
    // The model got the answers as the calls' results.
    const followUp = model.requests.find((r) => lastUser(r).includes("DELEGATE-3") && hasToolResults(r))!;
    for (const name of ["a", "b", "c"]) assert.ok(texts(followUp).some((t) => t.includes(`answer of ${name}`)));

    // The client heard each child's turn through the parent: its own threadId, and parentThreadId.
    for (const childId of children.values()) {
      const deltas = client.notifications
        .slice(mark)
        .filter((n) => n.method === "item/completed" && (n.params as { threadId: string }).threadId === childId)
        .map((n) => n.params as ServerNotificationParams<"item/completed"> & { parentThreadId?: string });
      assert.ok(deltas.length > 0, "the child's items reached the parent's subscriber");
      assert.ok(deltas.every((p) => p.parentThreadId === thread.id));
    }
    // A child is a thread: it reads like one, names its parent and the call, and its transcript has the task and the answer.
    for (const [name, childId] of children) {
      const read = await client.request("thread/read", { threadId: childId });
      const child = read.thread as typeof read.thread & { parentThreadId?: string; parentCallId?: string };
      assert.equal(child.parentThreadId, thread.id);
      assert.equal(child.parentCallId, `call_start_${name}`);
      assert.equal(child.name, name);
      const turnItems = (read.turns ?? []).flatMap((turn) => turn.items ?? []) as Array<{ type: string; text?: string }>;
      assert.ok(turnItems.some((item) => item.type === "userMessage" && item.text?.includes(`TASK-${name}`)));
      assert.ok(turnItems.some((item) => item.type === "agentMessage" && item.text === `answer of ${name}`));
    }
    // The parent's usage: its own figures, its children's summed, and both summed.
    const { usage } = await client.request("thread/resume", { threadId: thread.id });
    assert.ok(usage.subagents && usage.total, "a parent's usage counts its children");
    assert.ok(usage.subagents.output > 0);
    for (const key of ["input", "output", "cacheRead", "cacheWrite"] as const) assert.equal(usage.total[key], usage[key] + usage.subagents[key]);
    // A thread without children has neither figure.
    const { thread: lone } = await client.request("thread/start", { cwd });
    const loneUsage = (await client.request("thread/resume", { threadId: lone.id })).usage;
    assert.equal(loneUsage.subagents, undefined);
    assert.equal(loneUsage.total, undefined);
  });

  test("a child's approval reaches the parent's client, names the child, and is answered there", async () => {
    const client = server.main;
    routes.set("DELEGATE-EDIT", {
      first: { toolCalls: [{ id: "call_start_edit", name: "agent_start", arguments: { task: "TASK-edit write the file", name: "writer" } }] },
      afterTools: { text: "the writer is done" },
    });
    routes.set("TASK-edit", {
      first: { toolCalls: [{ id: "call_child_write", name: "write", arguments: { path: "child.txt", content: "from the child\n" } }] },
      afterTools: { text: "wrote it" },
    });
    const asked = approver(client, () => ({ decision: "accept" }));
    try {
      const { thread } = await client.request("thread/start", { cwd, approvalMode: "ask" });
      const { completed } = await runParentTurn(client, thread.id, "DELEGATE-EDIT now");
      assert.equal(completed.turn.status, "completed");
      const request = asked.asked.find((p) => p.itemId === "call_child_write");
      assert.ok(request, "the child's write was put to the parent's client");
      assert.notEqual(request.threadId, thread.id, "the request names the child");
      // Asked at all: the child runs under its parent's approval mode (fullAccess would not ask).
      const child = await client.request("thread/read", { threadId: request.threadId });
      assert.equal((child.thread as { parentThreadId?: string }).parentThreadId, thread.id);
    } finally {
      asked.off();
    }
  });

  test("interrupting the parent interrupts its working children", async () => {
    const client = server.main;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    routes.set("DELEGATE-SLOW", {
      first: { toolCalls: [{ id: "call_start_slow", name: "agent_start", arguments: { task: "TASK-slow think long", name: "slow" } }] },
      afterTools: { text: "unused" },
    });
    routes.set("TASK-slow", { first: { text: ["thinking ", "still thinking"], pauseAfter: 1, gate }, afterTools: { text: "unused" } });
    try {
      const { thread } = await client.request("thread/start", { cwd, approvalMode: "fullAccess" });
      const mark = client.notifications.length;
      await client.request("turn/start", { threadId: thread.id, text: "DELEGATE-SLOW go" });
      const childStarted = await client.waitForNotification("turn/started", (p) => (p as { parentThreadId?: string }).parentThreadId === thread.id, {
        since: mark,
      });
      await client.request("turn/interrupt", { threadId: thread.id });
      const parentDone = await client.waitForNotification("turn/completed", (p) => p.threadId === thread.id, { since: mark });
      assert.equal(parentDone.turn.status, "interrupted");
      const childDone = await client.waitForNotification("turn/completed", (p) => p.threadId === childStarted.threadId, { since: mark });
      assert.equal(childDone.turn.status, "interrupted");
    } finally {
      release();
    }
  });

  test("archiving a parent archives its sub-agents, and unarchiving brings them back", async () => {
    const client = server.main;
    routes.set("DELEGATE-ARCHIVE", {
      first: { toolCalls: [{ id: "call_start_archived", name: "agent_start", arguments: { task: "TASK-archived hello", name: "archived" } }] },
      afterTools: { text: "delegated" },
    });
    routes.set("TASK-archived", { first: { text: "hello back" }, afterTools: { text: "unused" } });
    const { thread } = await client.request("thread/start", { cwd, approvalMode: "fullAccess" });
    await runParentTurn(client, thread.id, "DELEGATE-ARCHIVE go");
    const [child] = (await client.request("thread/list", { parentThreadId: thread.id })).threads;
    assert.ok(child);
    const mark = client.notifications.length;
    await client.request("thread/archive", { threadId: thread.id });
    await client.waitForNotification("thread/archived", (p) => p.threadId === child.id, { since: mark });
    assert.deepEqual((await client.request("thread/list", { parentThreadId: thread.id })).threads, []);
    assert.deepEqual(
      (await client.request("thread/list", { parentThreadId: thread.id, archived: true })).threads.map((t) => t.id),
      [child.id],
    );
    await client.request("thread/unarchive", { threadId: thread.id });
    await client.waitForNotification("thread/unarchived", (p) => p.threadId === child.id, { since: mark });
    assert.deepEqual(
      (await client.request("thread/list", { parentThreadId: thread.id })).threads.map((t) => t.id),
      [child.id],
    );
  });

  test("a child in a worktree of its own: its edit shows in its own diff and not in the parent's checkout", async () => {
    const client = server.main;
    const repo = initRepo(server.project({}, `repo-${Date.now()}`), { "README.md": "hello\n" });
    routes.set("DELEGATE-TREE", {
      first: { toolCalls: [{ id: "call_start_tree", name: "agent_start", arguments: { task: "TASK-tree add a file", name: "tree", worktree: true } }] },
      afterTools: { text: "the tree child is done" },
    });
    routes.set("TASK-tree", {
      first: { toolCalls: [{ id: "call_tree_write", name: "write", arguments: { path: "added.txt", content: "from the worktree child\n" } }] },
      afterTools: { text: "added it" },
    });
    const { thread } = await client.request("thread/start", { cwd: repo, approvalMode: "fullAccess" });
    const { turnId, completed } = await runParentTurn(client, thread.id, "DELEGATE-TREE go");
    assert.equal(completed.turn.status, "completed");
    const call = callsOf(client, turnId).find((c) => c.id === "call_start_tree")!;
    const childId = call.subagents![0]!.threadId;
    const resumed = await client.request("thread/resume", { threadId: childId });
    assert.equal(resumed.thread.workspace.mode, "worktree");
    assert.notEqual(resumed.thread.workspace.path, repo);
    const diff = await client.request("thread/diff/read", { threadId: childId, scope: "uncommitted" });
    assert.deepEqual(
      diff.files.map((f) => [f.path, f.status]),
      [["added.txt", "added"]],
    );
    assert.equal(existsSync(join(repo, "added.txt")), false, "the parent's checkout is untouched");
    const parentDiff = await client.request("thread/diff/read", { threadId: thread.id, scope: "uncommitted" });
    assert.deepEqual(parentDiff.files, []);
  });

  test("a client that did not opt in hears none of a child's turn through the parent: only what every connection hears of a new thread", async () => {
    const plain = new TestServer({ model });
    try {
      await plain.main.initialize();
      routes.set("DELEGATE-PLAIN", {
        first: { toolCalls: [{ id: "call_start_plain", name: "agent_start", arguments: { task: "TASK-plain say hi", name: "plain" } }] },
        afterTools: { text: "done" },
      });
      routes.set("TASK-plain", { first: { text: "hi" }, afterTools: { text: "unused" } });
      const { thread } = await plain.main.request("thread/start", { cwd: plain.project({}), approvalMode: "fullAccess" });
      const { mark, turnId } = await runParentTurn(plain.main, thread.id, "DELEGATE-PLAIN go");
      const call = callsOf(plain.main, turnId).find((c) => c.id === "call_start_plain")!;
      const childId = call.subagents![0]!.threadId;
      const aboutChild = plain.main.notifications
        .slice(mark)
        .filter(
          (n) =>
            (n.params as { threadId?: string; thread?: { id: string } }).threadId === childId ||
            (n.params as { thread?: { id: string } }).thread?.id === childId,
        );
      // The broadcasts the specification sends every connection about any thread; no item, delta or turn of it.
      assert.ok(aboutChild.length > 0);
      for (const n of aboutChild) assert.match(n.method, /^thread\/(started|status\/changed|turn\/completed|name\/updated)$/, n.method);
      assert.ok(plain.main.notifications.slice(mark).every((n) => (n.params as { parentThreadId?: string }).parentThreadId === undefined));
      await plain.close();
    } finally {
      plain.cleanup();
    }
  });

  test("the sub-agent tools refuse a thread that is not this thread's sub-agent, and load none", async () => {
    const client = server.main;
    const { thread: other } = await client.request("thread/start", { cwd });
    await client.request("thread/unsubscribe", { threadId: other.id });
    routes.set("PROBE-FOREIGN", {
      first: {
        toolCalls: [
          { id: "call_probe_other", name: "agent_send", arguments: { agent: other.id, message: "do my bidding" } },
          { id: "call_probe_made_up", name: "agent_wait", arguments: { agents: ["00000000-0000-4000-8000-000000000000"] } },
          { id: "call_probe_close", name: "agent_close", arguments: { agent: "../../etc/passwd" } },
        ],
      },
      afterTools: { text: "refused" },
    });
    const { thread } = await client.request("thread/start", { cwd, approvalMode: "fullAccess" });
    const { turnId } = await runParentTurn(client, thread.id, "PROBE-FOREIGN now");
    const calls = callsOf(client, turnId);
    assert.equal(calls.length, 3);
    for (const call of calls) {
      assert.equal(call.status, "failed", call.id);
      assert.match(call.output ?? "", /No sub-agent of this thread/);
    }
    assert.equal(model.requests.filter((r) => lastUser(r).includes("do my bidding")).length, 0, "the other thread was given nothing");
  });

  test("past subagents.maxRunning a start fails and says so, while the first works on", async () => {
    const client = server.main;
    const settings = join(server.agentDir, "settings.json");
    writeFileSync(settings, JSON.stringify({ subagents: { maxRunning: 1 } }));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    try {
      routes.set("DELEGATE-RUNNING", {
        first: {
          toolCalls: [
            { id: "call_running_1", name: "agent_start", arguments: { task: "TASK-busy one", wait: false } },
            { id: "call_running_2", name: "agent_start", arguments: { task: "TASK-busy two", wait: false } },
          ],
        },
        afterTools: { text: "one runs" },
      });
      routes.set("TASK-busy", { first: { text: ["", "busy"], pauseAfter: 1, gate }, afterTools: { text: "unused" } });
      const { thread } = await client.request("thread/start", { cwd, approvalMode: "fullAccess" });
      const { turnId } = await runParentTurn(client, thread.id, "DELEGATE-RUNNING go");
      const calls = callsOf(client, turnId);
      assert.deepEqual(calls.map((c) => c.status).sort(), ["completed", "failed"]);
      assert.match(calls.find((c) => c.status === "failed")!.output ?? "", /subagents\.maxRunning/);
    } finally {
      release();
      rmSync(settings, { force: true });
    }
  });

  test("past subagents.maxPerThread a start fails and says so; the thread goes on", async () => {
    const client = server.main;
    const project = server.project({ ".knightcode/settings.json": JSON.stringify({ subagents: { maxPerThread: 1 } }) });
    await client.request("project/trust/set", { cwd: project, trusted: true });
    routes.set("DELEGATE-TWO", {
      first: {
        toolCalls: [
          { id: "call_limit_1", name: "agent_start", arguments: { task: "TASK-one hello", wait: false } },
          { id: "call_limit_2", name: "agent_start", arguments: { task: "TASK-two hello", wait: false } },
        ],
      },
      afterTools: { text: "one of two" },
    });
    routes.set("TASK-one", { first: { text: "one" }, afterTools: { text: "unused" } });
    routes.set("TASK-two", { first: { text: "two" }, afterTools: { text: "unused" } });
    const { thread } = await client.request("thread/start", { cwd: project, approvalMode: "fullAccess" });
    const { turnId, completed } = await runParentTurn(client, thread.id, "DELEGATE-TWO go");
    assert.equal(completed.turn.status, "completed");
    const calls = callsOf(client, turnId);
    assert.deepEqual(calls.map((c) => c.status).sort(), ["completed", "failed"]);
    assert.match(calls.find((c) => c.status === "failed")!.output ?? "", /subagents\.maxPerThread/);
    await waitUntil("no child left working", () => model.requests.filter((r) => /TASK-(one|two)/.test(lastUser(r))).length === 1 || undefined);
  });

  test("a server killed while a child works leaves parent and child readable and resumable", async () => {
    const home = new TestServer({ model });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    try {
      await home.main.client.initialize({ clientInfo: { name: "subagents-kill" }, capabilities: { subagents: true } });
      const project = home.project({});
      routes.set("DELEGATE-KILL", {
        first: { toolCalls: [{ id: "call_start_kill", name: "agent_start", arguments: { task: "TASK-kill work slowly", name: "victim" } }] },
        afterTools: { text: "unused" },
      });
      routes.set("TASK-kill", { first: { text: ["partial ", "rest"], pauseAfter: 1, gate }, afterTools: { text: "unused" } });
      const { thread } = await home.main.request("thread/start", { cwd: project, approvalMode: "fullAccess" });
      const mark = home.main.notifications.length;
      await home.main.request("turn/start", { threadId: thread.id, text: "DELEGATE-KILL go" });
      const child = await home.main.waitForNotification("turn/started", (p) => (p as { parentThreadId?: string }).parentThreadId === thread.id, {
        since: mark,
      });
      // Killed while the child's reply streams.
      await waitUntil("the child's model request", () => model.requests.find((r) => lastUser(r).includes("TASK-kill") && r.firstByteAt !== undefined));
      home.kill("SIGKILL");
      await home.waitForExit();
      release();

      const again = new TestServer({ model, home: home.home });
      try {
        await again.main.initialize();
        const parentRead = await again.main.request("thread/read", { threadId: thread.id });
        assert.equal(parentRead.turns.at(-1)?.status, "interrupted", "the parent's turn, and with it its call, reads as interrupted");
        const childRead = await again.main.request("thread/read", { threadId: child.threadId });
        assert.equal((childRead.thread as { parentThreadId?: string }).parentThreadId, thread.id);
        assert.equal(childRead.turns.at(-1)?.status, "interrupted");
        const listed = await again.main.request("thread/list", { parentThreadId: thread.id });
        assert.deepEqual(
          listed.threads.map((t) => t.id),
          [child.threadId],
        );
        // Resumable: the child takes a turn of its own.
        routes.set("CHILD-AGAIN", { first: { text: "back again" }, afterTools: { text: "unused" } });
        await again.main.request("thread/resume", { threadId: child.threadId });
        const done = again.main.notifications.length;
        await again.main.request("turn/start", { threadId: child.threadId, text: "CHILD-AGAIN hello" });
        const completed = await again.main.waitForNotification("turn/completed", (p) => p.threadId === child.threadId, { since: done });
        assert.equal(completed.turn.status, "completed");
        await again.main.request("thread/resume", { threadId: thread.id });
      } finally {
        await again.close();
      }
    } finally {
      release();
      home.cleanup();
    }
  });

  test("an extension starts and awaits a sub-agent through ctx.subagents", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kc-subagents-ext-"));
    writeFileSync(join(dir, "delegate.ts"), DELEGATE_EXTENSION);
    const withExtension = new TestServer({ model, args: ["-e", join(dir, "delegate.ts")] });
    try {
      await withExtension.main.initialize();
      routes.set("EXT-CALL", {
        first: { toolCalls: [{ id: "call_ext_delegate", name: "delegate", arguments: { task: "TASK-ext do it" } }] },
        afterTools: { text: "the extension delegated" },
      });
      routes.set("TASK-ext", { first: { text: "the child's answer" }, afterTools: { text: "unused" } });
      const { thread } = await withExtension.main.request("thread/start", { cwd: withExtension.project({}), approvalMode: "fullAccess" });
      const { turnId, completed } = await runParentTurn(withExtension.main, thread.id, "EXT-CALL go");
      assert.equal(completed.turn.status, "completed");
      const item = callsOf(withExtension.main, turnId).find((c) => c.id === "call_ext_delegate")!;
      assert.equal(item.status, "completed");
      assert.equal(item.output, "completed: the child's answer");
      const children = await withExtension.main.request("thread/list", { parentThreadId: thread.id });
      assert.equal(children.threads.length, 1);
      assert.match((children.threads[0] as { parentCallId?: string }).parentCallId ?? "", /^extension-/);
      await withExtension.close();
    } finally {
      withExtension.cleanup();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** A tool that hands its task to a sub-agent and answers with the sub-agent's answer. */
const DELEGATE_EXTENSION = `
export default function (kc: any) {
  kc.registerTool({
    name: "delegate",
    description: "Hands a task to a sub-agent",
    parameters: { type: "object", properties: { task: { type: "string" } }, required: ["task"] },
    async execute(_id: string, params: { task: string }, _signal: AbortSignal, _update: unknown, ctx: any) {
      const started = await ctx.subagents.start({ task: params.task, name: "ext" });
      const [done] = await ctx.subagents.wait([started.threadId]);
      return { content: [{ type: "text", text: done.status + ": " + done.answer }], details: {} };
    },
  });
}
`;
