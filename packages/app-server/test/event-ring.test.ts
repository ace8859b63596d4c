import assert from "node:assert/strict";
import { test } from "node:test";
import { createLogger } from "../src/index.js";
import { Connection } from "../src/rpc/connection.js";
import type { SequencedEvent } from "../src/rpc/thread-holds.js";
import type { ServerTransport } from "../src/transport/types.js";
import { EventRing } from "../src/threads/event-ring.js";
import { ThreadSequences } from "../src/threads/sequences.js";

function delta(seq: number, text = "x"): SequencedEvent {
  return { seq, method: "item/agentMessage/delta", params: { threadId: "t", turnId: "u", itemId: "i", delta: text } };
}

test("the ring replays everything after a seq it still holds, and nothing once the oldest it needs is gone", () => {
  const ring = new EventRing(10, 3);
  for (let seq = 11; seq <= 13; seq++) ring.record(delta(seq));
  assert.deepEqual(
    ring.after(10, 13)?.map((e) => e.seq),
    [11, 12, 13],
  );
  assert.deepEqual(ring.after(13, 13), [], "nothing missed");
  assert.equal(ring.after(14, 13), undefined, "a seq never sent");
  assert.equal(ring.after(9, 13), undefined, "from before the ring began");
  ring.record(delta(14));
  assert.equal(ring.after(10, 14), undefined, "11 is gone");
  assert.deepEqual(
    ring.after(11, 14)?.map((e) => e.seq),
    [12, 13, 14],
  );
});

test("the ring is bounded by bytes as well: one runaway notification pushes out the rest, then itself", () => {
  const ring = new EventRing(0, 1000, 2_000);
  for (let seq = 1; seq <= 5; seq++) ring.record(delta(seq, "small"));
  assert.equal(ring.after(0, 5)?.length, 5);
  ring.record(delta(6, "x".repeat(1_500)));
  assert.equal(ring.after(0, 6), undefined);
  assert.deepEqual(
    ring.after(5, 6)?.map((e) => e.seq),
    [6],
  );
  ring.record(delta(7, "y".repeat(5_000)));
  assert.equal(ring.after(6, 7), undefined, "a notification larger than the bound is not held");
  assert.deepEqual(ring.after(7, 7), []);
});

test("deltas held as runs come back as they were sent: each with its own seq and text, from the middle of a run too", () => {
  const ring = new EventRing(0, 10_000);
  const sent: SequencedEvent[] = [];
  const send = (event: SequencedEvent) => {
    sent.push(event);
    ring.record(event);
  };
  let seq = 0;
  send({ seq: ++seq, method: "item/started", params: { threadId: "t", turnId: "u", item: { id: "i", type: "agentMessage", text: "" } } });
  for (let n = 0; n < 600; n++) send({ seq: ++seq, method: "item/agentMessage/delta", params: { threadId: "t", turnId: "u", itemId: "i", delta: `w${n} ` } });
  send({ seq: ++seq, method: "item/reasoning/delta", params: { threadId: "t", turnId: "u", itemId: "r", delta: "think" } });
  for (let n = 0; n < 3; n++) send({ seq: ++seq, method: "item/agentMessage/delta", params: { threadId: "t", turnId: "u", itemId: "i", delta: "" } });
  assert.deepEqual(JSON.stringify(ring.after(0, seq)), JSON.stringify(sent), "byte for byte, in order");
  for (const from of [1, 2, 256, 257, 300, 601, 602, seq - 1, seq]) {
    assert.deepEqual(JSON.stringify(ring.after(from, seq)), JSON.stringify(sent.filter((e) => e.seq > from)), `after ${from}`);
  }
});

test("a full ring drops the oldest deltas of a run one by one, its newest stay", () => {
  const ring = new EventRing(0, 300);
  for (let seq = 1; seq <= 301; seq++) ring.record(delta(seq, `d${seq}`));
  assert.equal(ring.after(0, 301), undefined);
  assert.deepEqual(
    ring.after(1, 301)?.map((e) => (e.params as { delta: string }).delta),
    Array.from({ length: 300 }, (_, i) => `d${i + 2}`),
  );
  for (let seq = 302; seq <= 800; seq++) ring.record(delta(seq, `d${seq}`));
  assert.equal(ring.after(499, 800), undefined);
  assert.equal(ring.after(500, 800)?.length, 300);
});

test("a thread's seq never goes back, and starts past the numbers of a server started earlier", () => {
  const earlier = new ThreadSequences(1_000);
  const later = new ThreadSequences(2_000);
  assert.equal(earlier.next("a"), 1_001);
  assert.equal(earlier.next("a"), 1_002);
  assert.equal(earlier.next("b"), 1_001);
  assert.equal(earlier.current("a"), 1_002);
  assert.ok(later.next("a") > earlier.current("a"));
});

/** A connection over a transport that records what is sent, initialized with or without seq. */
function recordedConnection(sequenced: boolean): { connection: Connection; sent: Record<string, unknown>[] } {
  const sent: Record<string, unknown>[] = [];
  let receive: (text: string) => void = () => undefined;
  const transport = {
    send: (text: string) => sent.push(JSON.parse(text) as Record<string, unknown>),
    onMessage: (listener: (text: string) => void) => {
      receive = listener;
      return () => undefined;
    },
    onFault: () => () => undefined,
    onClose: () => () => undefined,
    onDrain: () => () => undefined,
    onInputEnd: () => () => undefined,
    close: () => undefined,
    stopInput: () => undefined,
    flush: async () => undefined,
    backlog: () => 0,
  } as unknown as ServerTransport;
  const connection = new Connection(transport, "memory", { onRequest: () => undefined, onClosed: () => undefined }, createLogger({ level: "error" }));
  connection.beginInitialize({});
  if (sequenced) connection.useSequence();
  receive(JSON.stringify({ method: "initialized", params: {} }));
  return { connection, sent };
}

test("while a replay is decided and answered, what the thread sends waits: the replay goes first, then what waited, other threads untouched", () => {
  const { connection, sent } = recordedConnection(true);
  const release = connection.holdForReplay("t");
  assert.ok(release);
  assert.equal(connection.holdForReplay("t"), undefined, "one replay of a thread at a time");
  connection.notify("item/agentMessage/delta", { threadId: "t", turnId: "u", itemId: "i", delta: "live" }, 4);
  connection.notify("thread/name/updated", { threadId: "other", name: "n" }, 9);
  void connection.request("item/toolCall/requestApproval", { threadId: "t" } as never);
  assert.deepEqual(
    sent.map((m) => m.method),
    ["thread/name/updated"],
  );
  sent.push({ answer: true });
  release!([delta(2, "missed "), delta(3, "and this ")]);
  assert.deepEqual(
    sent.map((m) => (m.params as { seq?: number } | undefined)?.seq ?? m.method ?? "answer"),
    [9, "answer", 2, 3, 4, "item/toolCall/requestApproval"],
  );
  connection.notify("item/agentMessage/delta", { threadId: "t", turnId: "u", itemId: "i", delta: "after" }, 5);
  assert.equal((sent.at(-1)!.params as { seq?: number }).seq, 5, "sent at once once the hold ended");
});

test("a client that did not ask for seq gets the params as they are", () => {
  const { connection, sent } = recordedConnection(false);
  const params = { threadId: "t", name: "n" };
  connection.notify("thread/name/updated", params, 7);
  assert.deepEqual(sent, [{ method: "thread/name/updated", params: { threadId: "t", name: "n" } }]);
});
