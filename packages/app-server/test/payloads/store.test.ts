import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { ServerContext, createLogger } from "../../src/index.js";
import { PayloadError } from "../../src/payloads/errors.js";
import { PAYLOAD_CHUNK_BYTES, PAYLOAD_TTL_MS, PayloadStore, isPayloadId, type PayloadChunk } from "../../src/payloads/store.js";
import { waitUntil } from "../support/harness.js";

const CHUNK = PAYLOAD_CHUNK_BYTES;
const roots: string[] = [];
after(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function tempRoot(): string {
  const root = mkdtempSync(join(tmpdir(), "kc-payload-test-"));
  roots.push(root);
  return root;
}

function makeStore(options: ConstructorParameters<typeof PayloadStore>[0] = {}) {
  const clock = { now: 1_000_000 };
  const counters = { payloadFiles: 0, payloadBytes: 0 };
  const store = new PayloadStore({ root: tempRoot(), now: () => clock.now, counters, ...options });
  return { store, clock, counters };
}

/** Every chunk of a payload, following nextOffset from 0. */
async function readAll(store: PayloadStore, id: string): Promise<{ data: Buffer; chunks: PayloadChunk[] }> {
  const chunks: PayloadChunk[] = [];
  let offset = 0;
  for (;;) {
    const chunk = await store.read(id, offset);
    chunks.push(chunk);
    if (chunk.eof) break;
    offset = chunk.nextOffset!;
  }
  return { data: Buffer.concat(chunks.map((c) => Buffer.from(c.data, "base64"))), chunks };
}

async function rejectsWith(work: Promise<unknown>, code: string): Promise<PayloadError> {
  const error = await work.then(
    () => assert.fail(`expected ${code}`),
    (e: unknown) => e,
  );
  assert.ok(error instanceof PayloadError, `expected a PayloadError, got ${String(error)}`);
  assert.equal(error.code, code);
  return error;
}

function spoolFiles(store: PayloadStore): string[] {
  return store.spoolPath && existsSync(store.spoolPath) ? readdirSync(store.spoolPath).sort() : [];
}

describe("spec: History, listings, and large values (payload store chunks)", () => {
  test("chunks are 48 KiB of bytes; eof and nextOffset are exact at every boundary", async () => {
    const { store } = makeStore();
    for (const size of [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK, 2 * CHUNK + 1]) {
      const value = randomBytes(size);
      const ref = store.put(value);
      assert.equal(ref.bytes, size);
      const { data, chunks } = await readAll(store, ref.id);
      assert.ok(data.equals(value), `value of ${size} bytes reads back`);
      assert.equal(chunks.length, Math.max(1, Math.ceil(size / CHUNK)), `chunk count for ${size}`);
      chunks.forEach((chunk, i) => {
        const length = Buffer.from(chunk.data, "base64").length;
        const last = i === chunks.length - 1;
        assert.equal(chunk.eof, last);
        assert.equal(length, last ? size - i * CHUNK : CHUNK);
        if (last) assert.equal("nextOffset" in chunk, false);
        else assert.equal(chunk.nextOffset, (i + 1) * CHUNK);
      });
    }
  });

  test("offsets count bytes, not characters: a chunk may end inside a character", async () => {
    const { store } = makeStore();
    const text = "a" + "€".repeat(20_000); // 1 + 60,000 bytes; byte 49,152 falls inside a euro sign
    const ref = store.put(text);
    assert.equal(ref.bytes, Buffer.byteLength(text));
    const first = await store.read(ref.id, 0);
    assert.equal(first.nextOffset, CHUNK);
    assert.notEqual(Buffer.from(first.data, "base64").toString("utf8"), text.slice(0, CHUNK), "the first chunk alone is not whole characters");
    assert.equal((await readAll(store, ref.id)).data.toString("utf8"), text);
    const fromOne = await store.read(ref.id, 1);
    assert.equal(Buffer.from(fromOne.data, "base64").subarray(0, 3).toString("utf8"), "€");
    assert.equal(fromOne.nextOffset, 1 + CHUNK);
  });

  test("an offset at the end reads nothing with eof; past the end or not an integer is refused", async () => {
    const { store } = makeStore();
    const ref = store.put("hello");
    assert.deepEqual(await store.read(ref.id, 5), { data: "", eof: true });
    const past = await rejectsWith(store.read(ref.id, 6), "offsetOutOfRange");
    assert.deepEqual(past.details, { bytes: 5 });
    await rejectsWith(store.read(ref.id, -1), "invalidOffset");
    await rejectsWith(store.read(ref.id, 1.5), "invalidOffset");
    await rejectsWith(store.read(ref.id, Number.MAX_SAFE_INTEGER + 2), "invalidOffset");
  });

  test("many reads at once, some before the file is written, all get their bytes", async () => {
    const { store } = makeStore();
    const value = randomBytes(20 * CHUNK + 123);
    const ref = store.put(value);
    const offsets = Array.from({ length: 60 }, (_, i) => (i * 7919 * 13) % value.length);
    const chunks = await Promise.all(offsets.map((offset) => store.read(ref.id, offset)));
    chunks.forEach((chunk, i) => {
      const offset = offsets[i]!;
      assert.ok(Buffer.from(chunk.data, "base64").equals(value.subarray(offset, offset + CHUNK)), `offset ${offset}`);
    });
  });
});

describe("spec: History, listings, and large values (payload store lifetime)", () => {
  test("references expire 30 minutes after their last access; reads and puts renew them", async () => {
    const { store, clock, counters } = makeStore();
    const a = store.put("value a");
    const b = store.put("value b");
    clock.now += PAYLOAD_TTL_MS - 1;
    await store.read(a.id, 0);
    clock.now += 1;
    await rejectsWith(store.read(b.id, 0), "unknownPayload");
    clock.now += PAYLOAD_TTL_MS - 2;
    await store.read(a.id, 0);
    clock.now += PAYLOAD_TTL_MS - 1;
    assert.equal(store.put(Buffer.from("value a")).id, a.id, "the same bytes share one reference, and the put renews it");
    clock.now += PAYLOAD_TTL_MS - 1;
    await store.read(a.id, 0);
    clock.now += PAYLOAD_TTL_MS;
    await rejectsWith(store.read(a.id, 0), "unknownPayload");
    await store.settled();
    assert.deepEqual(counters, { payloadFiles: 0, payloadBytes: 0 });
  });

  test("a value put again after it expired gets a new reference", async () => {
    const { store, clock } = makeStore();
    const first = store.put("again");
    clock.now += PAYLOAD_TTL_MS;
    const second = store.put("again");
    assert.notEqual(second.id, first.id);
    await rejectsWith(store.read(first.id, 0), "unknownPayload");
    assert.equal(Buffer.from((await store.read(second.id, 0)).data, "base64").toString(), "again");
  });

  test("sweep deletes expired files and keeps the rest; counters follow exactly", async () => {
    const { store, clock, counters } = makeStore();
    const old = store.put("x".repeat(1000));
    clock.now += 10 * 60_000;
    const recent = store.put("y".repeat(300));
    await store.settled();
    assert.deepEqual(spoolFiles(store), [old.id, recent.id].sort());
    assert.deepEqual(counters, { payloadFiles: 2, payloadBytes: 1300 });
    clock.now += PAYLOAD_TTL_MS - 10 * 60_000;
    assert.equal(await store.sweep(), 1);
    assert.deepEqual(spoolFiles(store), [recent.id]);
    assert.deepEqual(counters, { payloadFiles: 1, payloadBytes: 300 });
    assert.deepEqual(store.size, { files: 1, bytes: 300 });
  });

  test("the sweeper timer removes expired files by itself", async () => {
    const { store, clock, counters } = makeStore({ sweepIntervalMs: 10 });
    const ref = store.put("swept");
    await store.settled();
    assert.deepEqual(spoolFiles(store), [ref.id]);
    clock.now += PAYLOAD_TTL_MS;
    await waitUntil("the sweeper to remove the file", () => spoolFiles(store).length === 0);
    await store.settled();
    assert.deepEqual(counters, { payloadFiles: 0, payloadBytes: 0 });
    await store.dispose();
  });

  test("identical values share one immutable, read-only file", async () => {
    const { store, counters } = makeStore();
    const a = store.put("same bytes");
    const b = store.put(new TextEncoder().encode("same bytes"));
    assert.deepEqual(a, b);
    await store.settled();
    assert.deepEqual(spoolFiles(store), [a.id]);
    assert.deepEqual(counters, { payloadFiles: 1, payloadBytes: 10 });
    if (process.platform !== "win32") {
      assert.equal(statSync(join(store.spoolPath!, a.id)).mode & 0o777, 0o400);
      assert.equal(statSync(store.spoolPath!).mode & 0o777, 0o700);
    }
  });

  test("a full spool evicts the least recently used; a value larger than the spool is refused", async () => {
    const { store, counters } = makeStore({ maxBytes: 100 });
    const first = store.put("1".repeat(40));
    const second = store.put("2".repeat(40));
    await store.read(first.id, 0);
    const third = store.put("3".repeat(40));
    await rejectsWith(store.read(second.id, 0), "unknownPayload");
    await store.read(first.id, 0);
    await store.read(third.id, 0);
    await store.settled();
    assert.deepEqual(spoolFiles(store), [first.id, third.id].sort());
    assert.deepEqual(counters, { payloadFiles: 2, payloadBytes: 80 });
    assert.throws(
      () => store.put("x".repeat(101)),
      (e: unknown) => e instanceof PayloadError && e.code === "tooLarge",
    );
    assert.deepEqual(counters, { payloadFiles: 2, payloadBytes: 80 });
  });

  test("a spool that cannot be created fails the read clearly and holds nothing", async () => {
    const counters = { payloadFiles: 0, payloadBytes: 0 };
    const errors: string[] = [];
    const store = new PayloadStore({ root: join(tempRoot(), "missing", "deeper"), counters, onError: (message) => errors.push(message) });
    const ref = store.put("lost");
    const error = await rejectsWith(store.read(ref.id, 0), "spoolFailed");
    assert.match(error.message, /could not be spooled/);
    await store.settled();
    assert.deepEqual(counters, { payloadFiles: 0, payloadBytes: 0 });
    assert.ok(errors.some((m) => m.includes("spooling payload")));
  });

  test("the spool folder is created on first put, named for the process, and removed on dispose", async () => {
    const root = tempRoot();
    const context = new ServerContext({ log: createLogger({ level: "error" }) });
    const store = new PayloadStore({ root, counters: context.counters });
    context.onDispose(() => store.dispose());
    assert.equal(store.spoolPath, undefined);
    assert.deepEqual(readdirSync(root), []);
    const ref = store.put("kept until dispose");
    await store.read(ref.id, 0);
    assert.match(store.spoolPath!, new RegExp(`knightcode-spool-${process.pid}-[^/\\\\]+$`));
    assert.equal(context.counters.payloadFiles, 1);
    await context.dispose();
    assert.deepEqual(readdirSync(root), []);
    assert.deepEqual([context.counters.payloadFiles, context.counters.payloadBytes], [0, 0]);
    await rejectsWith(store.read(ref.id, 0), "closed");
    assert.throws(
      () => store.put("late"),
      (e: unknown) => e instanceof PayloadError && e.code === "closed",
    );
  });

  test("the server context's store is created lazily and removed when the context is disposed", async () => {
    const context = new ServerContext({ log: createLogger({ level: "error" }) });
    const store = context.payloads;
    assert.equal(context.payloads, store);
    const ref = store.put("context value");
    await store.read(ref.id, 0);
    const spool = store.spoolPath!;
    assert.ok(existsSync(spool));
    assert.deepEqual([context.counters.payloadFiles, context.counters.payloadBytes], [1, 13]);
    await context.dispose();
    assert.equal(existsSync(spool), false);
    assert.deepEqual([context.counters.payloadFiles, context.counters.payloadBytes], [0, 0]);
  });
});

describe("spec: History, listings, and large values (IDs grant access only to spool files)", () => {
  const hostile = [
    "../../etc/passwd",
    "/etc/passwd",
    "a/b",
    "..",
    ".",
    "%2e%2e",
    "%2e%2e%2fcanary",
    "..\\..\\canary",
    "C:\\Windows\\win.ini",
    "abc\0def",
    "0".repeat(31) + "\0",
    "A".repeat(32),
    "0".repeat(33),
    "x".repeat(100_000),
    "",
  ];

  test("ids are lowercase hex of 32 characters, nothing else", () => {
    const { store } = makeStore();
    assert.ok(isPayloadId(store.put("issued").id));
    for (const id of hostile) assert.equal(isPayloadId(id), false, JSON.stringify(id.slice(0, 40)));
    assert.equal(isPayloadId(42), false);
  });

  test("hostile ids are unknown and never reach the file system", async () => {
    const root = tempRoot();
    const canary = join(root, "canary");
    writeFileSync(canary, "secret canary");
    const store = new PayloadStore({ root });
    for (const id of [...hostile, canary, `../${"canary"}`, `../../${root}/canary`]) {
      await rejectsWith(store.read(id, 0), "unknownPayload");
    }
    assert.equal(store.spoolPath, undefined, "no read created, or looked into, a spool");
    assert.deepEqual(readdirSync(root), ["canary"]);
    await store.dispose();
  });

  test("a file planted in the spool under a well-formed name is not served: only issued ids are", async () => {
    const root = tempRoot();
    const store = new PayloadStore({ root });
    const issued = store.put("issued value");
    await store.settled();
    const planted = "f".repeat(32);
    writeFileSync(join(store.spoolPath!, planted), "planted");
    await rejectsWith(store.read(planted, 0), "unknownPayload");
    for (const id of hostile) await rejectsWith(store.read(id, 0), "unknownPayload");
    assert.equal(Buffer.from((await store.read(issued.id, 0)).data, "base64").toString(), "issued value");
    await store.dispose();
    assert.deepEqual(readdirSync(root), []);
  });
});
