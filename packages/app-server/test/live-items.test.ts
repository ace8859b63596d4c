import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { SessionEvent } from "@knightcode/agent/run/events";
import type { Item } from "@knightcode/app-server-protocol";
import { LiveTurnItems, type ItemSink } from "../src/turns/live-items.js";

const TURN = "turn-1";

function sink(): ItemSink & { completed: (item: Item) => void; done: Item[] } {
  const done: Item[] = [];
  return {
    done,
    started: () => undefined,
    completed: (item) => done.push(item),
    removed: () => undefined,
    agentDelta: () => undefined,
    reasoningDelta: () => undefined,
  };
}

const toolStart = (id: string): SessionEvent => ({ type: "tool_start", turnId: TURN, toolCallId: id, toolName: "read", args: { path: "a.txt" } });
const nestedStart = (parentId: string, id: string): SessionEvent => ({
  type: "nested_tool_start",
  turnId: TURN,
  parentId,
  toolCallId: id,
  toolName: "read",
  args: { path: "b.txt" },
  startedAt: 5,
});
const nestedEnd = (parentId: string, id: string): SessionEvent => ({
  type: "nested_tool_end",
  turnId: TURN,
  parentId,
  toolCallId: id,
  toolName: "read",
  result: { content: [{ type: "text", text: "beta" }] },
  isError: false,
  completedAt: 6,
});
const toolEnd = (id: string): SessionEvent =>
  ({
    type: "message_end",
    turnId: TURN,
    entryId: `entry-${id}`,
    entryTimestamp: 7,
    message: { role: "toolResult", toolCallId: id, toolName: "read", content: [{ type: "text", text: "alpha" }], isError: false, timestamp: 7 },
  }) as SessionEvent;

describe("spec: Threads and turns (a running turn's snapshot)", () => {
  test("top-level items in index order, each nested call right after its parent, however the calls interleave and finish", () => {
    const items = new LiveTurnItems(TURN, sink());
    for (const id of ["a", "b", "c"]) items.handle(toolStart(id));
    // Nested calls of a and c start interleaved, c's before a's second; c finishes first.
    items.handle(nestedStart("c", "c.1"));
    items.handle(nestedStart("a", "a.1"));
    items.handle(nestedStart("c", "c.2"));
    items.handle(nestedStart("a", "a.2"));
    items.handle(nestedEnd("c", "c.2"));
    items.handle(toolEnd("c"));
    items.handle(nestedEnd("a", "a.1"));
    const snapshot = items.snapshot();
    assert.deepEqual(
      snapshot.map((item) => item.id),
      ["a", "a.1", "a.2", "b", "c", "c.1", "c.2"],
    );
    assert.deepEqual(
      snapshot.filter((item) => item.parentItemId === undefined).map((item) => item.index),
      [0, 1, 2],
    );
    // Completion replaces an item in place: its position stays, its status is the new one.
    const byId = new Map(snapshot.map((item) => [item.id, item as Item & { status?: string }]));
    assert.equal(byId.get("c")!.status, "completed");
    assert.equal(byId.get("c.2")!.status, "completed");
    assert.equal(byId.get("a.1")!.status, "completed");
    assert.equal(byId.get("a.2")!.status, "inProgress");
    assert.equal(byId.get("b")!.status, "inProgress");
  });

  test("a snapshot of thousands of items keeps every one, in order, and taking it twice gives the same items", () => {
    const items = new LiveTurnItems(TURN, sink());
    const count = 5000;
    for (let i = 0; i < count; i++) {
      items.handle(toolStart(`call_${i}`));
      if (i % 100 === 0) items.handle(nestedStart(`call_${i}`, `call_${i}.1`));
    }
    for (let i = count - 1; i >= 0; i -= 2) items.handle(toolEnd(`call_${i}`));
    const first = items.snapshot();
    assert.equal(first.length, count + count / 100);
    const top = first.filter((item) => item.parentItemId === undefined);
    assert.deepEqual(
      top.map((item) => item.index),
      Array.from({ length: count }, (_, i) => i),
    );
    first.forEach((item, at) => {
      if (item.parentItemId !== undefined) assert.equal(first[at - 1]!.id, item.parentItemId);
    });
    assert.deepEqual(items.snapshot(), first);
  });

  test("a failed reply's withdrawn parts leave the snapshot; the items around them keep their order", () => {
    const items = new LiveTurnItems(TURN, sink());
    items.handle(toolStart("a"));
    const message = { role: "assistant", content: [{ type: "text", text: "par" }], stopReason: "error", timestamp: 3 };
    items.handle({ type: "message_start", turnId: TURN, message } as SessionEvent);
    items.handle({
      type: "message_update",
      turnId: TURN,
      message,
      event: { type: "text_delta", contentIndex: 0, delta: "par", partial: message },
    } as unknown as SessionEvent);
    assert.equal(items.snapshot().length, 2);
    items.handle({ type: "message_end", turnId: TURN, message, entryId: "e", entryTimestamp: 4 } as SessionEvent);
    items.handle(toolStart("b"));
    assert.deepEqual(
      items.snapshot().map((item) => [item.id, item.index]),
      [
        ["a", 0],
        ["b", 2],
      ],
    );
  });
});
