import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { SessionEntry } from "@knightcode/store/session/format";
import { turnsFromEntries, type HistoryTurn } from "../src/history/turns.js";

let n = 0;
function entry(fields: Record<string, unknown>): SessionEntry {
  n++;
  return { id: `e${n}`, parentId: n === 1 ? null : `e${n - 1}`, timestamp: 1000 + n, ...fields } as unknown as SessionEntry;
}

/** One turn: its start, a question and an answer, its end; the start's id is the turn's. */
function oneTurn(): SessionEntry[] {
  const start = entry({ type: "turn_start" });
  return [
    start,
    entry({ type: "message", message: { role: "user", content: "q", timestamp: 1 } }),
    entry({ type: "message", message: { role: "assistant", content: [{ type: "text", text: "a" }], stopReason: "stop", timestamp: 2 } }),
    entry({ type: "turn_end", turnId: start.id, status: "completed" }),
  ];
}

describe("spec: History, listings, and large values (a saved turn's content key)", () => {
  test("an ended turn has a key; a files entry written after its end changes the key and the turn's files", () => {
    const turn = oneTurn();
    const keys = new Map<HistoryTurn, string>();
    const [first] = turnsFromEntries(turn, { keys });
    const before = keys.get(first!);
    assert.ok(before);
    const files = [{ path: "a.ts", additions: 1, deletions: 0 }];
    const later = new Map<HistoryTurn, string>();
    const [withFiles] = turnsFromEntries([...turn, entry({ type: "turn_files", turnId: turn[0]!.id, before: "x", after: "y", files })], { keys: later });
    assert.deepEqual(withFiles!.files, files);
    assert.ok(later.get(withFiles!));
    assert.notEqual(later.get(withFiles!), before);
  });

  test("a turn with no end has no key and is never looked up; a reused turn is used as it is, its items not built", () => {
    const ended = oneTurn();
    const open = oneTurn().slice(0, 3);
    const asked: string[] = [];
    const stand = { id: ended[0]!.id, status: "completed" as const, startedAt: 1, payloadRef: { id: "0".repeat(32), bytes: 10 } };
    const keys = new Map<HistoryTurn, string>();
    const turns = turnsFromEntries([...ended, ...open], {
      keys,
      reuse: (key) => {
        asked.push(key);
        return key.startsWith(`${ended[0]!.id}/`) ? stand : undefined;
      },
    });
    assert.equal(asked.length, 1);
    assert.equal(turns[0], stand);
    assert.equal(turns[1]!.status, "interrupted");
    assert.equal(turns[1]!.items!.length, 2);
    assert.equal(keys.size, 0, "neither a reused turn nor an open one gets a key");
  });

  test("the skipped turn is left out; a files entry after it still reaches the turn it names, shown before it", () => {
    const first = oneTurn();
    const second = oneTurn();
    const files = entry({ type: "turn_files", turnId: first[0]!.id, before: "x", after: "y", files: [{ path: "late.ts", additions: 1, deletions: 1 }] });
    const turns = turnsFromEntries([...first, ...second, files], { skipTurnId: second[0]!.id });
    assert.deepEqual(
      turns.map((turn) => turn.id),
      [first[0]!.id],
    );
    assert.deepEqual(turns[0]!.files, [{ path: "late.ts", additions: 1, deletions: 1 }]);
  });
});
