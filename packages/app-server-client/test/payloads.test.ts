import assert from "node:assert/strict";
import { test } from "node:test";
import {
  AppServerClient,
  AppServerError,
  PayloadReadError,
  createMemoryTransportPair,
  readPayload,
  resolveItem,
  resolveTurn,
  type WireItem,
  type WireTurn,
} from "../src/index.js";

type Answer = { data: string; eof: boolean; nextOffset?: number } | { error: { code: string; message: string; data?: unknown } };

/**
 * A peer that answers payload/read from a table, `chunk` bytes at a time,
 * or with whatever `override` returns: these tests check how the client
 * treats answers, including ones a correct server never sends.
 */
function peer(values: Record<string, Buffer | string>, chunk = 5, override?: (id: string, offset: number) => Answer | undefined) {
  const [clientEnd, peerEnd] = createMemoryTransportPair();
  const requests: { id: string; offset: number }[] = [];
  peerEnd.onMessage((text) => {
    const message = JSON.parse(text) as { id: number; method: string; params: { id: string; offset: number } };
    requests.push(message.params);
    const { id, offset } = message.params;
    const value = values[id] === undefined ? undefined : Buffer.from(values[id]);
    const answer: Answer =
      override?.(id, offset) ??
      (value === undefined
        ? { error: { code: "invalidParams", message: "unknown", data: { reason: "unknownPayload" } } }
        : offset + chunk < value.length
          ? { data: value.subarray(offset, offset + chunk).toString("base64"), eof: false, nextOffset: offset + chunk }
          : { data: value.subarray(offset).toString("base64"), eof: true });
    peerEnd.send(JSON.stringify("error" in answer ? { id: message.id, error: answer.error } : { id: message.id, result: answer }));
  });
  return { client: new AppServerClient(clientEnd), requests };
}

async function rejection(work: Promise<unknown>): Promise<unknown> {
  return work.then(
    () => assert.fail("expected a rejection"),
    (e: unknown) => e,
  );
}

test("readPayload follows nextOffset from 0 and concatenates the bytes", async () => {
  const value = "héllo wörld, ça va? €€€";
  const { client, requests } = peer({ p: value });
  assert.equal((await readPayload(client, "p")).toString("utf8"), value);
  const size = Buffer.byteLength(value);
  assert.deepEqual(
    requests.map((r) => r.offset),
    Array.from({ length: Math.ceil(size / 5) }, (_, i) => i * 5),
  );
  assert.equal((await readPayload(client, { id: "p", bytes: size })).length, size);
});

test("a server error arrives as AppServerError with its data", async () => {
  const { client } = peer({});
  const error = await rejection(readPayload(client, "gone"));
  assert.ok(error instanceof AppServerError);
  assert.deepEqual([error.code, error.data], ["invalidParams", { reason: "unknownPayload" }]);
});

test("chunks that do not add up are refused, never looped on", async () => {
  const skipping = peer({ p: "0123456789" }, 5, (_id, offset) =>
    offset === 0 ? { data: Buffer.from("01234").toString("base64"), eof: false, nextOffset: 7 } : undefined,
  );
  const skipped = await rejection(readPayload(skipping.client, "p"));
  assert.ok(skipped instanceof PayloadReadError && skipped.kind === "inconsistent");
  const stuck = peer({}, 5, () => ({ data: "", eof: false, nextOffset: 0 }));
  const stalled = await rejection(readPayload(stuck.client, "p"));
  assert.ok(stalled instanceof PayloadReadError && stalled.kind === "inconsistent");
  assert.equal(stuck.requests.length, 1);
  const short = await rejection(readPayload(peer({ p: "abc" }).client, { id: "p", bytes: 4 }));
  assert.ok(short instanceof PayloadReadError && short.kind === "inconsistent");
});

test("maxBytes refuses a value larger than the caller will hold", async () => {
  const { client, requests } = peer({ p: "x".repeat(100) });
  const byRef = await rejection(readPayload(client, { id: "p", bytes: 100 }, { maxBytes: 50 }));
  assert.ok(byRef instanceof PayloadReadError && byRef.kind === "tooLarge");
  assert.equal(requests.length, 0, "a reference's size is checked before any read");
  const byId = await rejection(readPayload(client, "p", { maxBytes: 50 }));
  assert.ok(byId instanceof PayloadReadError && byId.kind === "tooLarge");
  assert.ok(requests.length <= 11);
});

test("resolveItem replaces inputRef, outputRef and whole-item references", async () => {
  const input = { command: "ls -la" };
  const fullItem = { id: "t:1", type: "agentMessage", index: 1, text: "long answer" };
  const { client } = peer({ i: JSON.stringify(input), o: "the output", w: JSON.stringify(fullItem) });
  const call = {
    id: "c",
    type: "toolCall",
    index: 0,
    name: "bash",
    status: "completed",
    inputRef: { id: "i", bytes: 20 },
    outputRef: { id: "o", bytes: 10 },
  } as WireItem;
  assert.deepEqual(await resolveItem(client, call), { id: "c", type: "toolCall", index: 0, name: "bash", status: "completed", input, output: "the output" });
  assert.deepEqual(
    await resolveItem(client, { id: "t:1", type: "agentMessage", index: 1, payloadRef: { id: "w", bytes: JSON.stringify(fullItem).length } } as WireItem),
    fullItem,
  );
  const plain = { id: "t:0", type: "userMessage", index: 0, text: "hi" } as WireItem;
  assert.equal(await resolveItem(client, plain), plain);
});

test("resolveTurn reads a referenced turn, then resolves its items", async () => {
  const items = [
    { id: "t:0", type: "userMessage", index: 0, text: "hi" },
    { id: "c", type: "toolCall", index: 1, name: "bash", status: "completed", input: {}, outputRef: { id: "o", bytes: 3 } },
  ];
  const stored = { id: "t", status: "completed", startedAt: 1, completedAt: 2, items };
  const { client } = peer({ t: JSON.stringify(stored), o: "out" });
  const wire = {
    id: "t",
    status: "completed",
    startedAt: 1,
    completedAt: 2,
    payloadRef: { id: "t", bytes: Buffer.byteLength(JSON.stringify(stored)) },
  } as WireTurn;
  const resolved = await resolveTurn(client, wire);
  const call = { id: "c", type: "toolCall", index: 1, name: "bash", status: "completed", input: {}, output: "out" };
  assert.deepEqual(resolved, { ...stored, items: [items[0], call] });
  assert.deepEqual(await resolveTurn(client, { id: "n", status: "inProgress", startedAt: 5 }), { id: "n", status: "inProgress", startedAt: 5 });
});
