import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import { LineFramer } from "@knightcode/app-server-protocol";
import { StdioTransport, createLogger } from "../src/index.js";
import { Connection } from "../src/rpc/connection.js";
import { BEHIND_BYTES } from "../src/rpc/outbox.js";
import { waitUntil } from "./support/harness.js";

/**
 * A client at the other end of a real pipe that reads only when told to:
 * `cat` copies what the server writes to a pipe this side leaves paused, so
 * the server's output backs up as it would behind a client that stopped
 * reading.
 */
function slowClient() {
  const child = spawn("cat", [], { stdio: ["pipe", "pipe", "ignore"] });
  child.stdin.on("error", () => undefined);
  const received: { method?: string; params?: Record<string, unknown> }[] = [];
  const framer = new LineFramer({
    maxLineBytes: 64 * 1024 * 1024,
    onLine: (line) => received.push(JSON.parse(line.toString("utf8"))),
    onOversized: () => undefined,
  });
  child.stdout.on("data", (chunk: Buffer) => framer.push(chunk));
  child.stdout.pause();
  const input = new PassThrough();
  const transport = new StdioTransport({ input, output: { stream: child.stdin, write: (text, done) => child.stdin.write(text, done) } });
  const connection = new Connection(transport, "stdio", { onRequest: () => undefined, onClosed: () => undefined }, createLogger({ level: "error" }));
  connection.beginInitialize();
  input.write('{"method":"initialized","params":{}}\n');
  return { child, transport, connection, received, read: () => child.stdout.resume() };
}

const summary = (m: { method?: string; params?: Record<string, unknown> }) => {
  const p = m.params ?? {};
  const detail =
    p.delta ??
    (p.status as { type?: string } | undefined)?.type ??
    (p.followUp as { id: string }[] | undefined)?.map((f) => f.id).join("+") ??
    (p.item as { id?: string } | undefined)?.id ??
    "";
  return `${m.method}:${p.threadId ?? ""}:${detail}`;
};

test("a client that falls behind gets each thread's newest state before that thread's next event, no deltas with a gap, and the rest once it caught up", async () => {
  const client = slowClient();
  try {
    const { connection, transport } = client;
    await waitUntil("the handshake", () => connection.isReady);
    const queue = (threadId: string, id: string) => connection.notify("turn/queue/updated", { threadId, steering: [], followUp: [{ id, text: id }] });
    const delta = (itemId: string, text: string) => connection.notify("item/agentMessage/delta", { threadId: "t1", turnId: "u1", itemId, delta: text });
    const turn = { id: "u1", status: "inProgress" as const, startedAt: 1 };

    delta("i1", "a");
    connection.notify("error", { message: "x".repeat(BEHIND_BYTES + 1024 * 1024) });
    assert.ok(transport.backlog() > BEHIND_BYTES, `behind by ${transport.backlog()} bytes`);
    queue("t1", "A");
    connection.notify("thread/status/changed", { threadId: "t1", status: { type: "active", waitingOn: [] } });
    queue("t1", "B");
    queue("t2", "C");
    delta("i1", "b");
    connection.notify("turn/started", { threadId: "t1", turn });
    delta("i1", "c");
    connection.notify("item/completed", { threadId: "t1", turnId: "u1", item: { id: "i1", type: "agentMessage", text: "abc" } });

    client.read();
    await waitUntil("the other thread's queue, once caught up", () =>
      client.received.some((m) => m.method === "turn/queue/updated" && m.params?.threadId === "t2"),
    );
    delta("i2", "d");
    await waitUntil("the last delta", () => client.received.some((m) => m.params?.delta === "d"));
    assert.deepEqual(client.received.filter((m) => m.method !== "error").map(summary), [
      "item/agentMessage/delta:t1:a",
      // Behind: t1's newest status and queue (A replaced by B) go out just before t1's turn/started; t2's waits.
      "thread/status/changed:t1:active",
      "turn/queue/updated:t1:B",
      "turn/started:t1:",
      // The deltas after the first one it was behind on are skipped; item/completed has the whole text.
      "item/completed:t1:i1",
      "turn/queue/updated:t2:C",
      "item/agentMessage/delta:t1:d",
    ]);
  } finally {
    client.child.kill("SIGKILL");
  }
});
