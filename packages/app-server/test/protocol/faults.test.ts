import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { AppServerError } from "@knightcode/app-server-client";
import type { Turn } from "@knightcode/app-server-protocol";
import { ScriptedModelServer } from "@knightcode/testkit";
import { startServer, waitUntil, type TestClient, type TestServer } from "../support/harness.js";
import { isAlive } from "../support/processes.js";

/** Why a small tmpfs cannot be mounted here, or undefined when it can: root alone is not enough in a container without CAP_SYS_ADMIN. */
function whyNoTmpfs(): string | undefined {
  if (process.getuid?.() !== 0) return "needs root to mount a small tmpfs (CI runs as root)";
  const probe = mkdtempSync(join(tmpdir(), "kc-faults-probe-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe], { stdio: "pipe" });
    execFileSync("umount", [probe], { stdio: "pipe" });
    return undefined;
  } catch (error) {
    return `cannot mount a tmpfs here (${String((error as { stderr?: Buffer }).stderr ?? error).trim()})`;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}
const NO_TMPFS = whyNoTmpfs();
if (NO_TMPFS) console.log(`# faults: the disk tests are skipped: ${NO_TMPFS}`);

let model: ScriptedModelServer;
before(async () => {
  model = await ScriptedModelServer.start();
});
after(async () => {
  await model.close();
});

/** A tmpfs of `size` for the sessions folder: a disk that really fills up or turns read-only. */
function smallDisk(size: string) {
  const dir = mkdtempSync(join(tmpdir(), "kc-faults-disk-"));
  execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size},mode=0700`, "tmpfs", dir]);
  return {
    dir,
    remount: (options: string) => execFileSync("mount", ["-o", `remount,${options}`, dir]),
    dispose: () => {
      try {
        execFileSync("umount", ["-l", dir]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** The thread's notifications since `mark`, as `method` or `method:detail`, with runs of deltas folded into one. */
function sequence(client: TestClient, threadId: string, mark: number): string[] {
  const out: string[] = [];
  for (const { method, params } of client.notifications.slice(mark)) {
    const p = params as { threadId?: string; status?: { type: string }; item?: { type: string }; turn?: { status: string }; kind?: string };
    if (p.threadId !== undefined && p.threadId !== threadId) continue;
    let label = method;
    if (method === "thread/status/changed") label += `:${p.status!.type}`;
    else if (method === "item/started" || method === "item/completed") label += `:${p.item!.type}`;
    else if (method === "turn/completed" || method === "thread/turn/completed") label += `:${p.turn!.status}`;
    else if (method === "error") label += `:${p.kind}`;
    if (label === out.at(-1) && label.endsWith("/delta")) continue;
    out.push(label);
  }
  return out;
}

function completions(client: TestClient, turnId: string, mark = 0): { local: Turn[]; everyone: Turn[] } {
  const pick = (method: string) =>
    client.notifications
      .slice(mark)
      .filter((n) => n.method === method && (n.params as { turn: Turn }).turn.id === turnId)
      .map((n) => (n.params as { turn: Turn }).turn);
  return { local: pick("turn/completed"), everyone: pick("thread/turn/completed") };
}

/** Every line of a transcript is whole JSON: nothing torn was left behind. */
function transcriptLines(path: string): { type: string; [field: string]: unknown }[] {
  const text = readFileSync(path, "utf8");
  assert.ok(text.endsWith("\n"), "the transcript ends with a whole line");
  return text
    .trimEnd()
    .split("\n")
    .map((line, i) => {
      try {
        return JSON.parse(line) as { type: string };
      } catch {
        return assert.fail(`line ${i + 1} is torn: ${line.slice(0, 80)}`);
      }
    });
}

function rejectsWith(code: string, message?: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof AppServerError, String(error));
    assert.equal(error.code, code, error.message);
    if (message) assert.match(error.message, message);
    return true;
  };
}

/** A started turn whose reply streams `head`, then waits for the returned release before sending `tail`. */
async function pausedTurn(client: TestClient, threadId: string, head: string, tail: string) {
  let release!: () => void;
  model.enqueue({ text: [head, tail], pauseAfter: 2, gate: new Promise<void>((resolve) => (release = resolve)) });
  const mark = client.notifications.length;
  await client.request("turn/start", { threadId, text: "write a long answer" });
  const started = await client.waitForNotification("turn/started", (p) => p.threadId === threadId, { since: mark });
  await client.waitForNotification("item/agentMessage/delta", (p) => p.threadId === threadId, { since: mark });
  return { turnId: started.turn.id, mark, release };
}

async function completedTurn(client: TestClient, threadId: string, text: string) {
  model.enqueue({ text: `re: ${text}` });
  const mark = client.notifications.length;
  await client.request("turn/start", { threadId, text });
  return (await client.waitForNotification("turn/completed", (p) => p.threadId === threadId, { since: mark })).turn;
}

describe("faults: the disk under the sessions folder fails mid-turn", { skip: NO_TMPFS ?? false }, () => {
  test("a full disk: the turn ends failed in the systemError's words, the queue is dropped, and resuming after space returns saves every word", async () => {
    const disk = smallDisk("256k");
    const server = await startServer({ model, env: { KNIGHTCODE_CODING_AGENT_SESSION_DIR: disk.dir } });
    let second: TestServer | undefined;
    try {
      const client = server.main;
      const { thread } = await client.request("thread/start", { cwd: server.project({ "a.txt": "a\n" }) });
      assert.equal((await completedTurn(client, thread.id, "hello")).status, "completed");
      const path = thread.sessionFile!;
      const savedBefore = readFileSync(path, "utf8");

      const head = "h".repeat(100 * 1024);
      const tail = "t".repeat(200 * 1024);
      const { turnId, mark, release } = await pausedTurn(client, thread.id, head, tail);
      const requestsBefore = model.requests.length;
      await client.request("turn/queue/add", { threadId: thread.id, text: "and then this" });
      release();

      const done = await client.waitForNotification("turn/completed", (p) => p.turn.id === turnId, { since: mark });
      await client.waitForNotification("thread/turn/completed", (p) => p.turn.id === turnId, { since: mark });
      const failed = await client.waitForNotification("thread/status/changed", (p) => p.threadId === thread.id && p.status.type === "systemError", {
        since: mark,
      });
      const message = (failed.status as { message: string }).message;
      assert.match(
        message,
        /^The thread stopped: the disk holding the sessions folder is full \(could not append to .*ENOSPC.*\)\. Free some space on it, then resume the thread; nothing saved before is lost\.$/,
      );
      assert.equal(done.turn.status, "failed");
      assert.deepEqual(done.turn.error, { message, kind: "other" }, "the turn says what the thread says");
      const error = await client.waitForNotification("error", (p) => p.kind === "threadFailed", { since: mark });
      assert.equal(error.message, message);
      await waitUntil("the queued input to be dropped", () =>
        client.notifications.slice(mark).some((n) => n.method === "turn/queue/updated" && (n.params as { followUp: unknown[] }).followUp.length === 0),
      );
      assert.deepEqual(sequence(client, thread.id, mark), [
        "turn/started",
        "thread/status/changed:active",
        "item/started:userMessage",
        "item/completed:userMessage",
        "item/started:agentMessage",
        "item/agentMessage/delta",
        "turn/queue/updated",
        "item/agentMessage/delta",
        "error:threadFailed",
        "thread/status/changed:systemError",
        "turn/queue/updated",
        "item/completed:agentMessage",
        "thread/tokenUsage/updated",
        "turn/completed:failed",
        "thread/turn/completed:failed",
      ]);
      const { local, everyone } = completions(client, turnId, mark);
      assert.equal(local.length, 1);
      assert.equal(everyone.length, 1);
      assert.equal(model.requests.length, requestsBefore, "the dropped input never reached the model");

      // The failed write left nothing torn, and the server goes on answering.
      assert.ok(readFileSync(path, "utf8").startsWith(savedBefore));
      transcriptLines(path);
      await client.request("thread/list", {});
      const listed = await client.request("thread/read", { threadId: thread.id });
      assert.equal(listed.thread.status.type, "systemError");

      // Still full: resuming fails in the same words and keeps what it could not write.
      await assert.rejects(client.request("thread/resume", { threadId: thread.id }), rejectsWith("internal", /the disk holding the sessions folder is full/));
      // Full to the last page, a new thread cannot even be created, and says so in the same words.
      const filler = join(disk.dir, "filler");
      assert.throws(() => writeFileSync(filler, Buffer.alloc(1024 * 1024)), /ENOSPC/);
      await assert.rejects(
        client.request("thread/start", { cwd: server.project() }),
        rejectsWith(
          "internal",
          /^Could not create the thread: the disk holding the sessions folder is full \(.*ENOSPC.*\)\. Free some space on it, then try again\.$/,
        ),
      );
      rmSync(filler);

      disk.remount("size=4m");
      const resumed = await client.request("thread/resume", { threadId: thread.id });
      assert.equal(resumed.thread.status.type, "idle");
      assert.deepEqual(
        resumed.turns.map((t) => t.status),
        ["completed", "failed"],
      );
      assert.deepEqual(resumed.turns[1]!.error, { message, kind: "other" });
      const reply = transcriptLines(path).find(
        (e) => e.type === "message" && (e.message as { role: string }).role === "assistant" && JSON.stringify(e).includes("tttt"),
      );
      assert.ok(reply, "the reply that could not be written is saved now");
      assert.equal(((reply!.message as { content: { text: string }[] }).content[0]!.text as string).length, head.length + tail.length);
      assert.equal((await completedTurn(client, thread.id, "after the disk")).status, "completed");

      await server.close();
      second = await startServer({ model, home: server.home, env: { KNIGHTCODE_CODING_AGENT_SESSION_DIR: disk.dir } });
      const reread = await second.main.request("thread/resume", { threadId: thread.id });
      assert.deepEqual(
        reread.turns.map((t) => [t.status, t.error?.message]),
        [
          ["completed", undefined],
          ["failed", message],
          ["completed", undefined],
        ],
      );
      transcriptLines(path);
    } finally {
      await second?.close();
      server.cleanup();
      disk.dispose();
    }
  });
});

describe("faults: another process takes the thread over mid-turn", () => {
  test("a turn waiting on an approval: the request is withdrawn, the queue dropped, the turn fails; nothing more is written", async () => {
    const server = await startServer({ model, env: { KNIGHTCODE_THREAD_IDLE_MS: "200" } });
    let second: TestServer | undefined;
    try {
      const client = server.main;
      const asked: { withdrawn: boolean }[] = [];
      client.client.onRequest("item/toolCall/requestApproval", (_params, context) => {
        const entry = { withdrawn: false };
        asked.push(entry);
        context.signal.addEventListener("abort", () => (entry.withdrawn = true));
        return new Promise(() => undefined);
      });
      const cwd = server.project();
      const { thread } = await client.request("thread/start", { cwd, approvalMode: "ask" });
      await completedTurn(client, thread.id, "hello");
      model.enqueue({ toolCalls: [{ id: "call_take", name: "bash", arguments: { command: "touch never.txt" } }] });
      const mark = client.notifications.length;
      await client.request("turn/start", { threadId: thread.id, text: "run it" });
      const started = await client.waitForNotification("turn/started", (p) => p.threadId === thread.id, { since: mark });
      await waitUntil("the approval request", () => asked.length === 1);
      await client.request("turn/queue/add", { threadId: thread.id, text: "later" });

      const path = thread.sessionFile!;
      rmSync(`${path}.lock`);
      second = await startServer({ model, home: server.home });
      await second.main.request("thread/resume", { threadId: thread.id });
      const size = readFileSync(path, "utf8").length;

      const done = await client.waitForNotification("turn/completed", (p) => p.turn.id === started.turn.id, { since: mark });
      const failed = await client.waitForNotification("thread/status/changed", (p) => p.threadId === thread.id && p.status.type === "systemError", {
        since: mark,
      });
      const message = (failed.status as { message: string }).message;
      assert.match(message, /^The thread stopped: another process took this thread over \(.*ownership lost.*\)\. This process writes nothing more to it/);
      assert.equal(done.turn.status, "failed");
      assert.deepEqual(done.turn.error, { message, kind: "other" });
      await waitUntil("the approval to be withdrawn", () => asked[0]!.withdrawn);
      const cancelled = client.notifications.slice(mark).filter((n) => n.method === "serverRequest/cancelled");
      assert.equal(cancelled.length, 1);
      const seq = sequence(client, thread.id, mark);
      const stop = seq.indexOf("error:threadFailed");
      assert.ok(stop > 0, seq.join(", "));
      assert.deepEqual(seq.slice(stop), [
        "error:threadFailed",
        "thread/status/changed:systemError",
        "turn/queue/updated",
        "item/completed:toolCall",
        "thread/tokenUsage/updated",
        "turn/completed:failed",
        "thread/turn/completed:failed",
      ]);
      assert.equal(completions(client, started.turn.id, mark).local.length, 1);
      assert.equal(existsSync(join(cwd, "never.txt")), false, "the call never ran");
      assert.equal(readFileSync(path, "utf8").length, size, "the first server wrote nothing after the loss");
      await assert.rejects(client.request("turn/start", { threadId: thread.id, text: "write?" }), rejectsWith("threadNotFound"));

      // The other process reads the cut turn as interrupted: nothing of the stop was the first server's to write.
      const read = await second.main.request("thread/read", { threadId: thread.id });
      assert.deepEqual(
        read.turns.map((t) => t.status),
        ["completed", "interrupted"],
      );
    } finally {
      await second?.close();
      await server.close();
    }
  });

  test("a turn running a command: its processes are killed with it", async () => {
    const server = await startServer({ model, env: { KNIGHTCODE_THREAD_IDLE_MS: "200" } });
    let second: TestServer | undefined;
    try {
      const client = server.main;
      const cwd = server.project();
      const { thread } = await client.request("thread/start", { cwd, approvalMode: "fullAccess" });
      model.enqueue({ toolCalls: [{ id: "call_sleep", name: "bash", arguments: { command: "sleep 1000 & echo $! > child.pid; wait" } }] });
      const mark = client.notifications.length;
      await client.request("turn/start", { threadId: thread.id, text: "wait" });
      const started = await client.waitForNotification("turn/started", (p) => p.threadId === thread.id, { since: mark });
      const pidFile = join(cwd, "child.pid");
      const pid = await waitUntil("the child's pid", () => (existsSync(pidFile) && readFileSync(pidFile, "utf8").trim()) || undefined);
      rmSync(`${thread.sessionFile!}.lock`);
      second = await startServer({ model, home: server.home });
      await second.main.request("thread/resume", { threadId: thread.id });
      const done = await client.waitForNotification("turn/completed", (p) => p.turn.id === started.turn.id, { since: mark });
      assert.equal(done.turn.status, "failed");
      assert.match(done.turn.error!.message, /another process took this thread over/);
      await waitUntil("the child to be gone", () => !isAlive(Number(pid)));
      // The last word of a turn; it may come in a write of its own, after turn/completed.
      await client.waitForNotification("thread/turn/completed", (p) => p.turn.id === started.turn.id, { since: mark });
      assert.equal(completions(client, started.turn.id, mark).everyone.length, 1);
    } finally {
      await second?.close();
      await server.close();
    }
  });
});

describe("faults: a tool that ignores the interrupt", () => {
  test("the turn ends after the grace period, the call is saved as failed, and the next turn runs on", async () => {
    const server = await startServer({ model });
    try {
      const client = server.main;
      writeFileSync(join(server.agentDir, "settings.json"), JSON.stringify({ interruptGraceMs: 200 }));
      const cwd = server.project({
        ".knightcode/extensions/stuck.ts": `export default function (kc: any) {
          kc.registerTool({ name: "stuck", description: "never returns", parameters: { type: "object", properties: {} },
            execute() { return new Promise(() => undefined); } });
        }`,
      });
      await client.request("project/trust/set", { cwd, trusted: true });
      const { thread } = await client.request("thread/start", { cwd, approvalMode: "fullAccess" });
      model.enqueue({ toolCalls: [{ id: "call_stuck", name: "stuck", arguments: {} }] });
      const mark = client.notifications.length;
      await client.request("turn/start", { threadId: thread.id, text: "get stuck" });
      const started = await client.waitForNotification("turn/started", (p) => p.threadId === thread.id, { since: mark });
      await client.waitForNotification("item/started", (p) => p.item.type === "toolCall", { since: mark });
      await client.request("turn/interrupt", { threadId: thread.id });
      const done = await client.waitForNotification("turn/completed", (p) => p.turn.id === started.turn.id, { since: mark });
      assert.equal(done.turn.status, "interrupted");
      const call = await client.waitForNotification("item/completed", (p) => p.item.type === "toolCall", { since: mark });
      assert.equal((call.item as { status: string }).status, "failed");
      assert.match(JSON.stringify(call.item), /did not stop within 200 ms/);
      await client.waitForNotification("thread/turn/completed", (p) => p.turn.id === started.turn.id, { since: mark });
      assert.deepEqual(completions(client, started.turn.id, mark).everyone.length, 1);

      const modelMark = model.requests.length;
      assert.equal((await completedTurn(client, thread.id, "go on")).status, "completed");
      assert.match(JSON.stringify(model.requests[modelMark]!.body.messages), /did not stop within 200 ms/, "the model sees the call's result");

      const read = await client.request("thread/read", { threadId: thread.id });
      assert.deepEqual(
        read.turns.map((t) => t.status),
        ["interrupted", "completed"],
      );
    } finally {
      await server.close();
    }
  });
});

describe("faults: shutdown mid-turn", () => {
  test("stdin closes while a reply streams: the turn is reported ended once, and a new process reads it with its text", async () => {
    const server = await startServer({ model });
    let second: TestServer | undefined;
    try {
      const client = server.main;
      const { thread } = await client.request("thread/start", { cwd: server.project() });
      const { turnId, mark } = await pausedTurn(client, thread.id, "streamed before the end", " never sent");
      server.transport.close();
      await server.waitForExit();
      const { local, everyone } = completions(client, turnId, mark);
      assert.deepEqual(
        local.map((t) => t.status),
        ["interrupted"],
      );
      assert.equal(everyone.length, 1);
      second = await startServer({ model, home: server.home });
      const read = await second.main.request("thread/read", { threadId: thread.id });
      assert.equal(read.turns[0]!.status, "interrupted");
      assert.match(JSON.stringify(read.turns[0]!.items), /streamed before the end/);
    } finally {
      await second?.close();
      server.cleanup();
    }
  });
});
