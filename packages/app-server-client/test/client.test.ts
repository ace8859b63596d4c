import assert from "node:assert/strict";
import { test } from "node:test";
import { AppServerClient, AppServerError, ClientError, createMemoryTransportPair } from "../src/index.js";

/** A hand-driven peer: the test plays the server, one message at a time. */
function pair() {
  const [clientEnd, peerEnd] = createMemoryTransportPair();
  const received: Record<string, unknown>[] = [];
  peerEnd.onMessage((text) => received.push(JSON.parse(text)));
  const client = new AppServerClient(clientEnd);
  const reply = (message: unknown) => peerEnd.send(JSON.stringify(message));
  const flush = () => new Promise((resolve) => setImmediate(resolve));
  return { client, received, reply, flush, peerEnd };
}

test("AppServerError keeps code, message and data exactly", async () => {
  const { client, received, reply, flush } = pair();
  const pending = client.request("server/diagnostics", {});
  await flush();
  const data = { reason: "diffChanged", paths: ["a"], nested: { x: [1, null] } };
  reply({ id: received[0]!.id, error: { code: "gitConflict", message: "changed", data } });
  const error = await pending.catch((e: unknown) => e);
  assert.ok(error instanceof AppServerError);
  assert.equal(error.code, "gitConflict");
  assert.equal(error.message, "changed");
  assert.deepEqual(error.data, data);
});

test("requests time out as a local ClientError, never a wire error", async () => {
  const { client } = pair();
  const error = await client.request("server/diagnostics", {}, { timeoutMs: 20 }).catch((e: unknown) => e);
  assert.ok(error instanceof ClientError);
  assert.equal(error.kind, "timeout");
});

test("closing rejects pending requests with a closed ClientError", async () => {
  const { client, peerEnd } = pair();
  const pending = client.request("server/diagnostics", {});
  peerEnd.close();
  const error = await pending.catch((e: unknown) => e);
  assert.ok(error instanceof ClientError);
  assert.equal(error.kind, "closed");
});

test("a server request without a handler is answered methodNotFound; a handler's result is sent back", async () => {
  const { client, received, reply, flush } = pair();
  reply({ id: "s1", method: "some/question", params: {} });
  await flush();
  await flush();
  assert.deepEqual(received[0], { id: "s1", error: { code: "methodNotFound", message: "this client does not handle some/question" } });
  (client as any).onRequest("some/question", (params: any) => ({ echoed: params.x }));
  reply({ id: "s2", method: "some/question", params: { x: 7 } });
  await flush();
  await flush();
  assert.deepEqual(received[1], { id: "s2", result: { echoed: 7 } });
});

test("serverRequest/cancelled aborts the handler's signal and suppresses its answer", async () => {
  const { client, received, reply, flush } = pair();
  let aborted = false;
  let release!: () => void;
  (client as any).onRequest("some/question", (_params: unknown, ctx: { signal: AbortSignal }) => {
    ctx.signal.addEventListener("abort", () => (aborted = true));
    return new Promise<object>((resolve) => (release = () => resolve({ late: true })));
  });
  reply({ id: "s9", method: "some/question", params: {} });
  await flush();
  reply({ method: "serverRequest/cancelled", params: { requestId: "s9" } });
  await flush();
  assert.equal(aborted, true);
  release();
  await flush();
  assert.equal(received.length, 0);
});

test("notifications reach method handlers and catch-all handlers; unsubscribe stops them", async () => {
  const { client, reply, flush } = pair();
  const seen: string[] = [];
  const off = client.onNotification("error", (params) => seen.push(`error:${params.message}`));
  client.onAnyNotification((method, _params) => seen.push(`any:${method}`));
  reply({ method: "error", params: { message: "a" } });
  await flush();
  off();
  reply({ method: "error", params: { message: "b" } });
  await flush();
  assert.deepEqual(seen, ["error:a", "any:error", "any:error"]);
});

test("a throwing server-request handler reaches onHandlerError and is still answered internal; an AppServerError does not", async () => {
  const { client, received, reply, flush } = pair();
  const seen: { error: unknown; method: string; requestId: unknown }[] = [];
  client.onHandlerError((error, context) => seen.push({ error, method: context.method, requestId: context.requestId }));
  client.onHandlerError(() => {
    throw new Error("a broken hook");
  });
  let calls = 0;
  client.onRequest("item/toolCall/requestApproval", () => {
    calls++;
    if (calls === 1) throw new RangeError("bug");
    throw new AppServerError({ code: "invalidParams", message: "on purpose" });
  });
  const params = { threadId: "t", turnId: "u", itemId: "i", tool: "bash", decisions: ["accept", "decline"] };
  reply({ id: "s1", method: "item/toolCall/requestApproval", params });
  reply({ id: "s2", method: "item/toolCall/requestApproval", params });
  await flush();
  await flush();
  assert.deepEqual(
    received.map((m) => [m.id, (m.error as { code: string }).code]),
    [
      ["s1", "internal"],
      ["s2", "invalidParams"],
    ],
  );
  assert.equal(seen.length, 1);
  assert.ok(seen[0]!.error instanceof RangeError);
  assert.equal(seen[0]!.method, "item/toolCall/requestApproval");
  assert.equal(seen[0]!.requestId, "s1");
});

test("waitFor resolves on the first accepted notification and stops listening", async () => {
  const { client, reply } = pair();
  const waiting = client.waitFor("turn/completed", (p) => p.threadId === "b", { timeoutMs: 5_000 });
  const turn = { id: "u", status: "completed" };
  reply({ method: "turn/completed", params: { threadId: "a", turnId: "u", turn } });
  reply({ method: "turn/completed", params: { threadId: "b", turnId: "u", turn } });
  assert.equal((await waiting).threadId, "b");
  const early = new AbortController();
  early.abort();
  const aborted = await client.waitFor("turn/completed", undefined, { signal: early.signal }).catch((e: unknown) => e);
  assert.ok(aborted instanceof ClientError && aborted.kind === "aborted");
});

test("onAnyNotification's params narrow by method: the handler reads each notification's own fields without a cast", async () => {
  const { client, reply, flush } = pair();
  const seen: string[] = [];
  client.onAnyNotification((method, params) => {
    // Compiles only because checking `method` narrows `params` to that notification's params.
    if (method === "error") seen.push(`error says ${params.message}`);
    else if (method === "thread/name/updated") seen.push(`named ${params.threadId}`);
  });
  reply({ method: "error", params: { message: "a" } });
  reply({ method: "thread/name/updated", params: { threadId: "t1", name: "n" } });
  await flush();
  assert.deepEqual(seen, ["error says a", "named t1"]);
});
