import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import {
  ENVELOPE_RESERVE,
  FIELD_LIMIT,
  INLINE_LIMIT,
  MAX_RESPONSE_BYTES,
  PAGE_BUDGET,
  boundList,
  boundPage,
  itemForWire,
  jsonBytes,
  responseBudget,
  turnForWire,
  TurnWireCache,
  type WireItem,
  type WireTurn,
} from "../../src/payloads/refs.js";
import { PayloadStore } from "../../src/payloads/store.js";
import { schemaPath } from "../support/schema.js";

const roots: string[] = [];
const stores: PayloadStore[] = [];
after(async () => {
  await Promise.all(stores.map((s) => s.dispose()));
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function makeStore(): PayloadStore {
  const root = mkdtempSync(join(tmpdir(), "kc-refs-test-"));
  roots.push(root);
  const store = new PayloadStore({ root });
  stores.push(store);
  return store;
}

async function text(store: PayloadStore, ref: { id: string; bytes: number }): Promise<string> {
  const parts: Buffer[] = [];
  for (let offset = 0; ; ) {
    const chunk = await store.read(ref.id, offset);
    parts.push(Buffer.from(chunk.data, "base64"));
    if (chunk.eof) break;
    offset = chunk.nextOffset!;
  }
  const data = Buffer.concat(parts);
  assert.equal(data.length, ref.bytes);
  return data.toString("utf8");
}

const BASE = "http://knightcode.invalid/app-server.schema.json";
const ajv = new Ajv2020({ strict: false });
ajv.addSchema({ ...(JSON.parse(readFileSync(schemaPath, "utf8")) as object), $id: BASE });
const validTurn = ajv.getSchema(`${BASE}#/$defs/Turn`)!;

function assertValidTurn(turn: unknown): void {
  assert.ok(validTurn(turn), `turn fails the schema: ${ajv.errorsText(validTurn.errors)}`);
}

function toolCall(fields: { input?: unknown; output?: string; fileChanges?: unknown[] } = {}, id = "call_1"): WireItem {
  return { id, type: "toolCall", index: 2, name: "bash", status: "completed", ...fields } as WireItem;
}

function agentMessage(textValue: string, index = 0, id = "t1:0"): WireItem {
  return { id, type: "agentMessage", index, text: textValue } as WireItem;
}

/** An agentMessage whose JSON is exactly `bytes` long. */
function agentMessageOfBytes(bytes: number): WireItem {
  const base = jsonBytes(agentMessage(""));
  return agentMessage("m".repeat(bytes - base));
}

function turn(items: WireItem[], extra: Partial<WireTurn> = {}, id = "turn-1"): WireTurn {
  return { id, status: "completed", startedAt: 1000, completedAt: 2000, items, ...extra };
}

describe("spec: History, listings, and large values (tool input and output references)", () => {
  test("an output of FIELD_LIMIT bytes stays inline; one byte more moves to outputRef", async () => {
    const store = makeStore();
    const small = toolCall({ input: { command: "ls" }, output: "o".repeat(FIELD_LIMIT) });
    assert.equal(itemForWire(small, store), small);
    const output = "o".repeat(FIELD_LIMIT + 1);
    const wire = itemForWire(toolCall({ input: { command: "ls" }, output }), store) as Record<string, unknown>;
    assert.equal("output" in wire, false);
    assert.deepEqual(wire.input, { command: "ls" });
    const ref = wire.outputRef as { id: string; bytes: number };
    assert.equal(ref.bytes, FIELD_LIMIT + 1);
    assert.equal(await text(store, ref), output);
  });

  test("field sizes count UTF-8 bytes, not characters", async () => {
    const store = makeStore();
    const output = "é".repeat(FIELD_LIMIT / 2 + 1); // fewer characters than the limit, more bytes
    const wire = itemForWire(toolCall({ output }), store) as Record<string, unknown>;
    const ref = wire.outputRef as { id: string; bytes: number };
    assert.equal(ref.bytes, FIELD_LIMIT + 2);
    assert.equal(await text(store, ref), output);
  });

  test("a large input moves to inputRef as JSON; a small output stays beside it", async () => {
    const store = makeStore();
    const input = { path: "big.txt", content: "c".repeat(FIELD_LIMIT) };
    const wire = itemForWire(toolCall({ input, output: "done" }), store) as Record<string, unknown>;
    assert.equal("input" in wire, false);
    assert.equal(wire.output, "done");
    assert.deepEqual(JSON.parse(await text(store, wire.inputRef as { id: string; bytes: number })), input);
  });

  test("items that are already references pass through unchanged", () => {
    const store = makeStore();
    const reference = { id: "x", type: "agentMessage", index: 1, payloadRef: { id: "0".repeat(32), bytes: 9 } } as WireItem;
    assert.equal(itemForWire(reference, store), reference);
  });
});

describe("spec: Limits and client reference (64 KiB per inline turn/item)", () => {
  test("an item of exactly 64 KiB stays inline; one byte more travels whole as {id, type, index, payloadRef}", async () => {
    const store = makeStore();
    const fits = agentMessageOfBytes(INLINE_LIMIT);
    assert.equal(jsonBytes(fits), INLINE_LIMIT);
    assert.equal(itemForWire(fits, store), fits);
    const over = agentMessageOfBytes(INLINE_LIMIT + 1);
    const wire = itemForWire(over, store) as Record<string, unknown>;
    assert.deepEqual(Object.keys(wire).sort(), ["id", "index", "payloadRef", "type"]);
    assert.deepEqual([wire.id, wire.type, wire.index], [over.id, "agentMessage", 0]);
    assert.deepEqual(JSON.parse(await text(store, wire.payloadRef as { id: string; bytes: number })), over);
  });

  test("a tool call still too large after its fields move travels whole, its payload the complete item, spooled once", async () => {
    const store = makeStore();
    const item = toolCall({
      input: { command: "x".repeat(FIELD_LIMIT * 2) },
      output: "y".repeat(FIELD_LIMIT * 3),
      fileChanges: [{ path: "a.ts", kind: "modify", diff: "d".repeat(INLINE_LIMIT) }],
    });
    const wire = itemForWire(item, store) as Record<string, unknown>;
    assert.deepEqual(Object.keys(wire).sort(), ["id", "index", "payloadRef", "type"]);
    assert.deepEqual(JSON.parse(await text(store, wire.payloadRef as { id: string; bytes: number })), item);
    await store.settled();
    assert.equal(store.size.files, 1, "no separate input or output payload was spooled");
  });

  test("a tool call that fits once its fields move keeps its other fields inline", () => {
    const store = makeStore();
    const item = toolCall({ output: "y".repeat(INLINE_LIMIT * 2), fileChanges: [{ path: "a.ts", kind: "add", diff: "d".repeat(40_000) }] });
    const wire = itemForWire(item, store) as Record<string, unknown>;
    assert.ok(wire.outputRef);
    assert.ok(Array.isArray(wire.fileChanges));
    assert.ok(jsonBytes(wire) <= INLINE_LIMIT);
  });

  test("a small turn stays as it is", () => {
    const store = makeStore();
    const small = turn([agentMessage("hi")]);
    assert.deepEqual(turnForWire(small, store), small);
    const notification = { id: "t", status: "inProgress", startedAt: 1 } as WireTurn;
    assert.equal(turnForWire(notification, store), notification);
  });

  test("a turn over 64 KiB travels as its summary plus payloadRef; the payload is the turn with wire items", async () => {
    const store = makeStore();
    const items = [agentMessage("a".repeat(35_000), 0, "t:0"), agentMessage("b".repeat(35_000), 1, "t:1"), toolCall({ output: "o".repeat(50_000) })];
    const full = turn(items, { status: "failed", error: { message: "boom", kind: "provider" }, files: [{ path: "a.ts", additions: 1, deletions: 2 }] });
    const wire = turnForWire(full, store);
    assertValidTurn(wire);
    assert.deepEqual(Object.keys(wire).sort(), ["completedAt", "error", "files", "id", "payloadRef", "startedAt", "status"]);
    assert.ok(jsonBytes(wire) <= INLINE_LIMIT);
    const payload = JSON.parse(await text(store, wire.payloadRef!)) as WireTurn;
    assertValidTurn(payload);
    assert.equal(payload.items!.length, 3);
    assert.deepEqual(payload.items!.slice(0, 2), items.slice(0, 2));
    const call = payload.items![2] as Record<string, unknown>;
    assert.equal(await text(store, call.outputRef as { id: string; bytes: number }), "o".repeat(50_000));
    assert.deepEqual(payload.error, full.error);
    assert.deepEqual(payload.files, full.files);
    assert.equal(turnForWire(wire, store), wire, "a referenced turn passes through");
  });

  test("a turn summary leaves files out when they alone overflow; the payload keeps them", async () => {
    const store = makeStore();
    const files = Array.from({ length: 3000 }, (_, i) => ({ path: `src/some/deep/folder/file-${i}.ts`, additions: i, deletions: 1 }));
    const wire = turnForWire(turn([agentMessage("x")], { files }), store);
    assertValidTurn(wire);
    assert.equal("files" in wire, false);
    assert.ok(jsonBytes(wire) <= INLINE_LIMIT);
    assert.deepEqual((JSON.parse(await text(store, wire.payloadRef!)) as WireTurn).files, files);
  });
});

describe("spec: History, listings, and large values (a long turn's reference)", () => {
  /** A turn whose JSON is exactly `bytes` long, its text two bytes per character (é) so length and bytes differ. */
  function turnOfBytes(bytes: number): WireTurn {
    const base = jsonBytes(turn([agentMessage("")]));
    const rest = bytes - base;
    return turn([agentMessage("é".repeat(Math.floor(rest / 2)) + "e".repeat(rest % 2))]);
  }

  test("a turn is measured in UTF-8 bytes: exactly 64 KiB stays inline, one byte more is referenced", () => {
    const store = makeStore();
    const fits = turnOfBytes(INLINE_LIMIT);
    assert.equal(jsonBytes(fits), INLINE_LIMIT);
    assert.deepEqual(turnForWire(fits, store), fits);
    const over = turnOfBytes(INLINE_LIMIT + 1);
    assert.ok(turnForWire(over, store).payloadRef);
  });

  test("the payload of a turn of thousands of items is the turn's JSON, items in order", async () => {
    const store = makeStore();
    const items = Array.from({ length: 3000 }, (_, i) => agentMessage(`answer ${i} ✓`, i, `t1:${i}`));
    const full = turn(items, { files: [{ path: "a.ts", additions: 1, deletions: 0 }] });
    const wire = turnForWire(full, store);
    assertValidTurn(wire);
    assert.deepEqual(JSON.parse(await text(store, wire.payloadRef!)), full);
  });

  test("with a cache, an unchanged turn keeps its reference; a changed or added item makes a new payload holding it", async () => {
    const store = makeStore();
    const cache = new TurnWireCache();
    const items = Array.from({ length: 2000 }, (_, i) => ({ ...toolCall({ output: `out ${i}` }, `call_${i}`), index: i, completedAt: 5 }) as WireItem);
    for (const item of items) cache.remember(item as never);
    const streaming = agentMessage("so far", 2000, "t1:0");
    const running = (extra: WireItem[]) => ({ id: "turn-1", status: "inProgress", startedAt: 1, items: [...items, ...extra] }) as WireTurn;
    const first = turnForWire(running([streaming]), store, cache);
    // The same items again, the streaming one a new but equal object: the same reference.
    const again = turnForWire(running([{ ...streaming }]), store, cache);
    assert.deepEqual(again, first);
    const grown = turnForWire(running([agentMessage("so far, more", 2000, "t1:0")]), store, cache);
    assert.notEqual(grown.payloadRef!.id, first.payloadRef!.id);
    const payload = JSON.parse(await text(store, grown.payloadRef!)) as WireTurn;
    assert.equal(payload.items!.length, 2001);
    assert.equal((payload.items!.at(-1) as { text: string }).text, "so far, more");
    assert.deepEqual(payload.items!.slice(0, 2000), items);
    assert.deepEqual(JSON.parse(await text(store, first.payloadRef!)), running([streaming]));
  });

  test("a kept reference the store no longer holds is replaced, never handed out dead", async () => {
    let now = 0;
    const root = mkdtempSync(join(tmpdir(), "kc-refs-test-"));
    roots.push(root);
    const store = new PayloadStore({ root, ttlMs: 1000, now: () => now });
    stores.push(store);
    const cache = new TurnWireCache();
    const items = Array.from({ length: 1000 }, (_, i) => agentMessage(`answer ${i}`, i, `t1:${i}`));
    const running = { id: "turn-1", status: "inProgress", startedAt: 1, items } as WireTurn;
    const first = turnForWire(running, store, cache);
    now = 5000;
    await store.sweep();
    const later = turnForWire(running, store, cache);
    assert.notEqual(later.payloadRef!.id, first.payloadRef!.id);
    assert.deepEqual(JSON.parse(await text(store, later.payloadRef!)), running);
  });
});

describe("spec: Limits and client reference (1 MiB per history/list response)", () => {
  const bigTurn = (i: number) => turn([agentMessage("z".repeat(40_000), 0, `t${i}:0`)], {}, `turn-${i}`);

  test("the reserve and budget add up to 1 MiB", () => {
    assert.equal(PAGE_BUDGET + ENVELOPE_RESERVE, MAX_RESPONSE_BYTES);
    assert.equal(responseBudget({ a: "xyz" }), PAGE_BUDGET - jsonBytes({ a: "xyz" }));
  });

  test("a page that fits is kept whole", () => {
    const turns = Array.from({ length: 5 }, (_, i) => bigTurn(i));
    assert.deepEqual(boundPage(turns), { turns, omitted: 0 });
    assert.deepEqual(boundPage([]), { turns: [], omitted: 0 });
  });

  test("an oversized page keeps its newest turns, and the response with its envelope stays within 1 MiB", () => {
    const store = makeStore();
    const turns = Array.from({ length: 50 }, (_, i) => turnForWire(bigTurn(i), store));
    const { turns: kept, omitted } = boundPage(turns);
    assert.ok(omitted > 0 && kept.length > 0);
    assert.deepEqual(kept, turns.slice(omitted), "the newest turns, in order");
    assert.ok(jsonBytes(kept) <= PAGE_BUDGET);
    assert.ok(jsonBytes(turns.slice(omitted - 1)) > PAGE_BUDGET, "one more turn would not fit");
    const response = { id: "request-".padEnd(200, "x"), result: { turns: kept, nextCursor: "c".repeat(400) } };
    assert.ok(jsonBytes(response) <= MAX_RESPONSE_BYTES);
  });

  test("the newest turn always stays, so a page always advances", () => {
    const turns = [bigTurn(1), bigTurn(2)];
    assert.deepEqual(boundPage(turns, 10), { turns: [turns[1]], omitted: 1 });
  });

  test("the budget is exact: a page of exactly maxBytes fits, one byte less does not", () => {
    const turns = [bigTurn(1), bigTurn(2), bigTurn(3)];
    const exact = jsonBytes(turns);
    assert.equal(boundPage(turns, exact).omitted, 0);
    assert.equal(boundPage(turns, exact - 1).omitted, 1);
  });

  test("a listing keeps its first entries and says how many were cut", () => {
    const entries = Array.from({ length: 40 }, (_, i) => ({ id: `thread-${i}`, name: "n".repeat(50_000) }));
    const { entries: kept, omitted } = boundList(entries);
    assert.deepEqual(kept, entries.slice(0, kept.length));
    assert.equal(kept.length + omitted, 40);
    assert.ok(omitted > 0 && jsonBytes(kept) <= PAGE_BUDGET);
    assert.equal(boundList(entries, 1).entries.length, 1);
  });
});
