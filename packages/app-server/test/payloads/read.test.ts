import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { describe, test } from "node:test";
import { AppServerError, readPayload, resolveItem, resolveTurn, type AppServerClient } from "@knightcode/app-server-client";
import { AppServer, ServerContext, createInProcessClient, createLogger } from "../../src/index.js";
import { turnForWire, type WireItem, type WireTurn } from "../../src/payloads/refs.js";
import { PAYLOAD_CHUNK_BYTES } from "../../src/payloads/store.js";
import { ProtocolValidator } from "../support/schema.js";

const validator = new ProtocolValidator();

/** An in-process server and client; every message both ways is checked against the generated schema. */
async function connect() {
  const context = new ServerContext({ log: createLogger({ level: "error" }), agentDir: "/nonexistent/agent" });
  const server = new AppServer({ context });
  const violations = { client: [] as string[], server: [] as string[] };
  const methods = new Map<unknown, string>();
  const client = createInProcessClient(server, {
    requestTimeoutMs: 15_000,
    tap: {
      outgoing: (message) => {
        if (typeof message.method === "string") methods.set(message.id, message.method);
        const problem = validator.checkClientMessage(message);
        if (problem) violations.client.push(problem);
      },
      incoming: (message) => {
        const problem = validator.checkServerMessage(message, "method" in message ? undefined : methods.get(message.id));
        if (problem) violations.server.push(problem);
      },
      invalid: (text) => violations.server.push(`not JSON: ${text.slice(0, 100)}`),
    },
  });
  await client.initialize({ clientInfo: { name: "payload-tests" } });
  /** `badParams`: how many requests the test sent against the schema on purpose. */
  const done = async (badParams = 0) => {
    await server.shutdown("test over");
    assert.deepEqual(violations.server, []);
    assert.equal(violations.client.length, badParams, violations.client.join("\n"));
  };
  return { context, server, client, done };
}

async function wireError(work: Promise<unknown>): Promise<AppServerError> {
  const error = await work.then(
    () => assert.fail("expected an error answer"),
    (e: unknown) => e,
  );
  assert.ok(error instanceof AppServerError, `expected AppServerError, got ${String(error)}`);
  return error;
}

function rawRequest(client: AppServerClient, params: unknown): Promise<unknown> {
  return client.request("payload/read", params as { id: string; offset: number });
}

describe("spec: History, listings, and large values (payload/read)", () => {
  test("a value put in the server's store reads back whole through readPayload, in 48 KiB chunks", async () => {
    const { context, client, done } = await connect();
    const text = "naïve €uro ✓ ".repeat(30_000);
    const ref = context.payloads.put(text);
    const first = await client.request("payload/read", { id: ref.id, offset: 0 });
    assert.equal(Buffer.from(first.data, "base64").length, PAYLOAD_CHUNK_BYTES);
    assert.deepEqual([first.eof, first.nextOffset], [false, PAYLOAD_CHUNK_BYTES]);
    assert.equal((await readPayload(client, ref.id)).toString("utf8"), text);
    assert.equal((await readPayload(client, ref)).toString("utf8"), text);
    const binary = randomBytes(3 * PAYLOAD_CHUNK_BYTES);
    assert.ok((await readPayload(client, context.payloads.put(binary))).equals(binary));
    const empty = context.payloads.put("");
    assert.deepEqual(await client.request("payload/read", { id: empty.id, offset: 0 }), { data: "", eof: true });
    assert.equal((await readPayload(client, empty)).length, 0);
    const diagnostics = await client.request("server/diagnostics", {});
    assert.deepEqual([diagnostics.payloadFiles, diagnostics.payloadBytes], [3, ref.bytes + binary.length]);
    await done();
  });

  test("resolveTurn and resolveItem put referenced turns, items, inputs and outputs back", async () => {
    const { context, client, done } = await connect();
    const items = [
      { id: "t:0", type: "userMessage", index: 0, text: "please" },
      { id: "t:1", type: "agentMessage", index: 1, text: "é".repeat(40_000) },
      { id: "t:2", type: "reasoning", index: 4, text: "r".repeat(35_000) },
      { id: "t:3", type: "agentMessage", index: 5, text: "a".repeat(35_000) },
      { id: "call_1", type: "toolCall", index: 2, name: "write", status: "completed", input: { content: "i".repeat(20_000) }, output: "o".repeat(20_000) },
      {
        id: "call_2",
        type: "toolCall",
        index: 3,
        name: "bash",
        status: "completed",
        input: { command: "ls" },
        output: "x".repeat(70_000),
        fileChanges: [{ path: "a", kind: "add", diff: "+".repeat(70_000) }],
      },
    ] as WireItem[];
    const full: WireTurn = { id: "t", status: "completed", startedAt: 1, completedAt: 2, items };
    const wire = turnForWire(full, context.payloads);
    assert.ok(wire.payloadRef, "the turn itself is referenced");
    assert.deepEqual(await resolveTurn(client, wire), full);
    const write = items.find((item) => item.id === "call_1")!;
    const call = turnForWire({ ...full, items: [write] }, context.payloads).items![0]!;
    assert.ok("inputRef" in call && "outputRef" in call);
    assert.deepEqual(await resolveItem(client, call), write);
    assert.deepEqual(await resolveTurn(client, { ...full, items: [items[0]!] }), { ...full, items: [items[0]!] });
    await done();
  });

  test("unknown, hostile, expired-looking ids answer invalidParams with data.reason unknownPayload", async () => {
    const { context, client, done } = await connect();
    context.payloads.put("something so the spool exists");
    for (const id of ["0".repeat(32), "../../etc/passwd", "/etc/passwd", "a/b", "%2e%2e", "abc\u0000def", "A".repeat(32)]) {
      const error = await wireError(client.request("payload/read", { id, offset: 0 }));
      assert.equal(error.code, "invalidParams", id);
      assert.deepEqual(error.data, { reason: "unknownPayload" });
    }
    await done();
  });

  test("an offset past the end answers offsetOutOfRange with the size; bad params are refused by the schema", async () => {
    const { context, client, done } = await connect();
    const ref = context.payloads.put("twelve bytes");
    const past = await wireError(client.request("payload/read", { id: ref.id, offset: 13 }));
    assert.equal(past.code, "invalidParams");
    assert.deepEqual(past.data, { reason: "offsetOutOfRange", bytes: 12 });
    assert.deepEqual(await client.request("payload/read", { id: ref.id, offset: 12 }), { data: "", eof: true });
    for (const params of [
      { id: ref.id, offset: -1 },
      { id: ref.id, offset: 1.5 },
      { id: ref.id },
      { id: "", offset: 0 },
      { id: "x".repeat(129), offset: 0 },
      { id: ref.id, offset: 0, extra: true },
    ]) {
      const error = await wireError(rawRequest(client, params));
      assert.equal(error.code, "invalidParams", JSON.stringify(params).slice(0, 80));
      assert.equal(error.data, undefined, "refused by the schema, before the store");
    }
    await done(6);
  });

  test("after the context is disposed the spool is gone and payload/read answers shuttingDown", async () => {
    const { context, client, done } = await connect();
    const ref = context.payloads.put("short-lived");
    await readPayload(client, ref);
    const spool = context.payloads.spoolPath!;
    await context.dispose();
    assert.equal(existsSync(spool), false);
    const error = await wireError(client.request("payload/read", { id: ref.id, offset: 0 }));
    assert.equal(error.code, "shuttingDown");
    await done();
  });
});
