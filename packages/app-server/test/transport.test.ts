import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import { StdioTransport, MAX_PENDING_OUTPUT_BYTES } from "../src/index.js";
import { Outbox } from "../src/rpc/outbox.js";
import { EARLY_WRITES, Gathering, QUIET_MS, STREAM_MESSAGES } from "../src/transport/gathering.js";
import { waitUntil } from "./support/harness.js";

/** A real pipe that nobody reads: the stdin of a sleeping child. */
function stalledPipe() {
  const child = spawn("sleep", ["60"], { stdio: ["pipe", "ignore", "ignore"] });
  child.stdin.on("error", () => undefined);
  const stream = child.stdin;
  return { child, output: { stream, write: (text: string, done?: (error?: Error | null) => void) => stream.write(text, done) } };
}

test("64 MiB of unread output aborts the connection instead of growing without bound", async () => {
  const { child, output } = stalledPipe();
  try {
    const transport = new StdioTransport({ input: new PassThrough(), output });
    let closedWith: Error | undefined;
    let closed = false;
    transport.onClose((reason) => {
      closed = true;
      closedWith = reason;
    });
    const message = JSON.stringify({ method: "x", params: { pad: "y".repeat(1024 * 1024) } });
    let sent = 0;
    while (!closed && sent < 200 * 2 ** 20) {
      transport.send(message);
      sent += message.length + 1;
    }
    assert.equal(closed, true);
    assert.match(closedWith!.message, /67108864 bytes of output left unread/);
    assert.ok(sent > MAX_PENDING_OUTPUT_BYTES && sent < MAX_PENDING_OUTPUT_BYTES + 4 * 2 ** 20, `aborted after ${sent} bytes`);
    // Once aborted, sends are dropped rather than queued.
    const before = output.stream.writableLength;
    transport.send(message);
    assert.equal(output.stream.writableLength, before);
  } finally {
    child.kill("SIGKILL");
  }
});

test("flush resolves once queued output is written, and at once when nothing is queued", async () => {
  const input = new PassThrough();
  const sink = new PassThrough();
  let received = "";
  sink.on("data", (chunk) => (received += chunk));
  const transport = new StdioTransport({ input, output: { stream: sink, write: (t, d) => sink.write(t, d) } });
  await transport.flush();
  transport.send('{"a":1}');
  await transport.flush();
  assert.equal(received, '{"a":1}\n');
});

test("stopInput drops lines not yet delivered and reports the end of input once", async () => {
  const input = new PassThrough();
  const sink = new PassThrough();
  const transport = new StdioTransport({ input, output: { stream: sink, write: (t, d) => sink.write(t, d) } });
  const messages: string[] = [];
  let ends = 0;
  transport.onMessage((text) => messages.push(text));
  transport.onInputEnd(() => ends++);
  input.write("{}\n");
  await new Promise((resolve) => setImmediate(resolve));
  transport.stopInput();
  input.write("{}\n");
  input.end();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(messages.length, 1);
  assert.equal(ends, 1);
});

test("the backlog is what the client left unread; drain says when it read everything", async () => {
  const child = spawn("cat", [], { stdio: ["pipe", "pipe", "ignore"] });
  try {
    child.stdin.on("error", () => undefined);
    child.stdout.pause();
    const stream = child.stdin;
    const transport = new StdioTransport({ input: new PassThrough(), output: { stream, write: (text, done) => stream.write(text, done) } });
    let drains = 0;
    transport.onDrain(() => drains++);
    assert.equal(transport.backlog(), 0);
    const message = JSON.stringify({ method: "x", params: { pad: "y".repeat(4 * 1024 * 1024) } });
    transport.send(message);
    assert.ok(transport.backlog() > 3 * 1024 * 1024, `${transport.backlog()} bytes wait`);
    let read = 0;
    child.stdout.on("data", (chunk: Buffer) => (read += chunk.length));
    child.stdout.resume();
    await waitUntil("the client to read everything", () => drains > 0);
    assert.equal(transport.backlog(), 0);
    await waitUntil("every byte through", () => read === message.length + 1);
  } finally {
    child.kill("SIGKILL");
  }
});

/** The writes a transport made, each as the lines it carried. */
function recordingOutput() {
  const sink = new PassThrough();
  const writes: string[][] = [];
  return {
    writes,
    output: { stream: sink, write: (text: string, done?: (error?: Error | null) => void) => (writes.push(text.trimEnd().split("\n")), sink.write(text, done)) },
  };
}

test("a message queued behind the first of a turn goes out when its job ends, before blocking work the next job does", async () => {
  const { writes, output } = recordingOutput();
  const transport = new StdioTransport({ input: new PassThrough(), output });
  transport.send("started");
  assert.deepEqual(writes, [["started"]], "the first message of a quiet moment goes out at once");
  transport.send("delta");
  assert.equal(writes.length, 1, "the second waits for the end of the job that queued it");
  // The next job of the same turn: where a reply's end would block on a durable append.
  const seenByNextJob = await new Promise<string[][]>((resolve) => queueMicrotask(() => resolve(writes.map((lines) => [...lines]))));
  assert.deepEqual(seenByNextJob, [["started"], ["delta"]]);
});

test("a burst in one turn costs the first write, a few early ones and one at the turn's end, with every message in order", async () => {
  const { writes, output } = recordingOutput();
  const transport = new StdioTransport({ input: new PassThrough(), output });
  const sent: string[] = [];
  const send = (text: string) => {
    sent.push(text);
    transport.send(text);
  };
  // Two thousand messages, each queued by a job of its own, as a reply's events are.
  for (let n = 0; n < 2_000; n++) {
    send(`m${n}`);
    await Promise.resolve();
  }
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(writes.flat(), sent);
  assert.ok(writes.length <= 1 + EARLY_WRITES + 1, `${writes.length} writes`);
  // The next turn starts quiet: its first message goes out at once again.
  transport.send("later");
  assert.deepEqual(writes.at(-1), ["later"]);
});

/** A gathering whose outputs are recorded by name, on a clock the test moves. */
function recordedGathering() {
  const clock = { now: 0 };
  const calls: string[] = [];
  const gathering = new Gathering(
    { opened: () => calls.push("opened"), held: () => calls.push("held"), flushed: () => calls.push("flushed"), closed: () => calls.push("closed") },
    () => clock.now,
  );
  return { gathering, calls, clock };
}

test("a stream's turns that follow each other closely get no early writes; a few messages before, or a quiet moment, leave them", async () => {
  const { gathering, calls, clock } = recordedGathering();
  const turn = async (messages: number) => {
    for (let i = 0; i < messages; i++) {
      gathering.added();
      await Promise.resolve();
    }
    await new Promise((resolve) => setImmediate(resolve));
  };
  await turn(3);
  assert.deepEqual(calls.splice(0), ["opened", "flushed", "flushed", "closed"], "the first turn follows a quiet moment");
  clock.now += QUIET_MS / 2;
  await turn(3);
  assert.deepEqual(calls.splice(0), ["opened", "flushed", "flushed", "closed"], "one turn of a few messages just before (a turn's start) is no stream");
  clock.now += QUIET_MS / 2;
  await turn(3);
  assert.deepEqual(calls.splice(0), ["opened", "closed"], "a turn right after two close ones gathers its messages: a paced stream");
  clock.now += QUIET_MS;
  await turn(STREAM_MESSAGES);
  calls.splice(0);
  clock.now += QUIET_MS / 2;
  await turn(3);
  assert.deepEqual(calls.splice(0), ["opened", "closed"], "a turn right after a big one gathers its messages: a burst");
  clock.now += QUIET_MS;
  await turn(3);
  assert.deepEqual(calls.splice(0), ["opened", "flushed", "flushed", "closed"], "after a quiet moment, early writes again");
});

test("a streaming delta queued later never causes a write: it goes with its turn's end, or with a message that must go out", async () => {
  const { writes, output } = recordingOutput();
  const transport = new StdioTransport({ input: new PassThrough(), output });
  // A turn that begins with later messages holds them all, each queued by a job of its own, until the turn ends.
  for (let n = 0; n < 50; n++) {
    transport.sendLater(`d${n}`);
    await Promise.resolve();
  }
  assert.equal(writes.length, 0, "nothing written before the turn's end");
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(writes, [Array.from({ length: 50 }, (_, n) => `d${n}`)], "one write, in order");
  // Later messages in a turn whose first went out at once start no early write; a message that must go out does, taking them along.
  // (A new transport: right after the burst above, the next turn would be a stream's, which takes no early writes at all.)
  const quiet = recordingOutput();
  const other = new StdioTransport({ input: new PassThrough(), output: quiet.output });
  const writesOf = quiet.writes;
  other.send("first");
  assert.deepEqual(writesOf, [["first"]]);
  other.sendLater("d50");
  await Promise.resolve();
  await Promise.resolve();
  assert.equal(writesOf.length, 1, "a later message starts no write at its job's end");
  other.send("approval");
  await new Promise<void>((resolve) => queueMicrotask(resolve));
  assert.deepEqual(writesOf, [["first"], ["d50", "approval"]], "a message that must go out takes the later ones with it, in order");
});

test("an item's first delta goes out when its job ends even while output streams; a turn's end still holds it", async () => {
  const { gathering, calls, clock } = recordedGathering();
  const endOfTurn = () => new Promise((resolve) => setImmediate(resolve));
  // A big turn, then one right after it: output streams, and the turn takes no early writes.
  for (let i = 0; i < STREAM_MESSAGES; i++) gathering.added();
  await endOfTurn();
  clock.now += QUIET_MS / 2;
  calls.splice(0);
  gathering.added();
  gathering.added();
  await Promise.resolve();
  assert.deepEqual(calls, ["opened"], "a streaming turn's second message waits");
  // The reply's first delta, then in later jobs the rest of the reply: the delta leaves at its job's end, the rest at the turn's.
  gathering.addSoon();
  await Promise.resolve();
  assert.deepEqual(calls, ["opened", "flushed"], "the first delta left when its job ended");
  gathering.added();
  gathering.addLater();
  await Promise.resolve();
  assert.deepEqual(calls, ["opened", "flushed"]);
  await endOfTurn();
  assert.deepEqual(calls.splice(0), ["opened", "flushed", "closed"]);
  // Once a turn's end is queued, a first delta after it goes with it.
  gathering.added();
  gathering.addTogether();
  gathering.addSoon();
  await Promise.resolve();
  assert.deepEqual(calls, ["opened"]);
  await endOfTurn();
  assert.deepEqual(calls.splice(0), ["opened", "closed"]);
});

test("a turn's end goes out with what follows it in its turn of the event loop, in one write, however many jobs queue them", async () => {
  const { writes, output } = recordingOutput();
  const transport = new StdioTransport({ input: new PassThrough(), output });
  // A turn of the loop that a turn's end opens: the end, the broadcast, and the status a later job sets.
  transport.sendTogether("turn/completed");
  transport.send("thread/turn/completed");
  await Promise.resolve();
  transport.send("thread/status/changed");
  await Promise.resolve();
  await Promise.resolve();
  assert.equal(writes.length, 0, "no early write once a turn's end is queued");
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(writes, [["turn/completed", "thread/turn/completed", "thread/status/changed"]]);
  // A turn of the loop whose first message went out at once: from the end on, the rest waits for the turn's end.
  const quiet = recordingOutput();
  const other = new StdioTransport({ input: new PassThrough(), output: quiet.output });
  other.send("item/completed");
  other.sendTogether("turn/completed");
  other.send("thread/turn/completed");
  await Promise.resolve();
  other.send("thread/status/changed");
  await Promise.resolve();
  assert.deepEqual(quiet.writes, [["item/completed"]]);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(quiet.writes, [["item/completed"], ["turn/completed", "thread/turn/completed", "thread/status/changed"]]);
  // The next turn of the loop is an ordinary one again: its first message goes out at once.
  other.send("turn/started");
  assert.deepEqual(quiet.writes.at(-1), ["turn/started"]);
});

test("a connection sends a turn's end, and the broadcast of it, to go out with what follows", () => {
  const sent: string[] = [];
  const transport = { backlog: () => 0 } as unknown as ConstructorParameters<typeof Outbox>[0];
  const outbox = new Outbox(transport, (message, when) => sent.push(`${message.method as string}:${when ?? "now"}`));
  const turn = { id: "u", items: [], status: "completed", error: null };
  outbox.notify("item/completed", { threadId: "t", turnId: "u", item: { id: "a", type: "agentMessage", text: "x" } });
  outbox.notify("turn/completed", { threadId: "t", turn });
  outbox.notify("thread/turn/completed", { threadId: "t", turn });
  assert.deepEqual(sent, ["item/completed:now", "turn/completed:together", "thread/turn/completed:together"]);
});

test("a connection's first delta of an item goes out soon; its next deltas wait for the turn's end, until the item ends", async () => {
  const sent: { method: string; when: string }[] = [];
  const transport = { backlog: () => 0 } as unknown as ConstructorParameters<typeof Outbox>[0];
  const outbox = new Outbox(transport, (message, when) =>
    sent.push({ method: `${message.method as string}:${(message.params as { delta?: string }).delta ?? ""}`, when: when ?? "now" }),
  );
  const delta = (itemId: string, text: string) => outbox.notify("item/agentMessage/delta", { threadId: "t", turnId: "u", itemId, delta: text });
  delta("a", "1");
  delta("a", "2");
  delta("b", "1");
  outbox.notify("item/completed", { threadId: "t", turnId: "u", item: { id: "a", type: "agentMessage", text: "12" } });
  delta("a", "3");
  delta("b", "2");
  outbox.notify("turn/completed", { threadId: "t", turn: { id: "u" } });
  delta("b", "3");
  assert.deepEqual(
    sent.map((s) => `${s.method} ${s.when}`),
    [
      "item/agentMessage/delta:1 soon",
      "item/agentMessage/delta:2 later",
      "item/agentMessage/delta:1 soon",
      "item/completed: now",
      "item/agentMessage/delta:3 soon",
      "item/agentMessage/delta:2 later",
      "turn/completed: together",
      "item/agentMessage/delta:3 soon",
    ],
  );
});

test("a message in parts goes out after what was queued before it, a write per part, as one line", async () => {
  const sink = new PassThrough();
  const writes: string[] = [];
  const transport = new StdioTransport({ input: new PassThrough(), output: { stream: sink, write: (t, d) => (writes.push(t), sink.write(t, d)) } });
  transport.send('{"n":1}');
  transport.send('{"n":2}');
  transport.sendParts(['{"id":3,"result":{"files":[1,', "2,3,", "4]}}"]);
  transport.send('{"n":4}');
  await transport.flush();
  // The first message of a turn goes out at once; the second waits in the batch, and leaves before the parts.
  assert.deepEqual(writes, ['{"n":1}\n', '{"n":2}\n', '{"id":3,"result":{"files":[1,', "2,3,", "4]}}\n", '{"n":4}\n']);
  const lines = writes.join("").split("\n").slice(0, -1);
  assert.deepEqual(
    lines.map((line) => JSON.parse(line)),
    [{ n: 1 }, { n: 2 }, { id: 3, result: { files: [1, 2, 3, 4] } }, { n: 4 }],
  );
});

test("parts a client leaves unread past the limit abort the connection, and the rest is not written", async () => {
  const { child, output } = stalledPipe();
  try {
    const transport = new StdioTransport({ input: new PassThrough(), output });
    let closedWith: Error | undefined;
    transport.onClose((reason) => (closedWith = reason));
    const part = "y".repeat(4 * 2 ** 20);
    transport.sendParts(Array.from({ length: 40 }, () => part));
    assert.match(closedWith!.message, /67108864 bytes of output left unread/);
    const queued = output.stream.writableLength;
    assert.ok(queued > MAX_PENDING_OUTPUT_BYTES && queued <= MAX_PENDING_OUTPUT_BYTES + part.length + 65536, `${queued} bytes queued`);
    transport.sendParts([part]);
    assert.equal(output.stream.writableLength, queued);
  } finally {
    child.kill("SIGKILL");
  }
});
