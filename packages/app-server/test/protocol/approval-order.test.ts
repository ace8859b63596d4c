import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { ScriptedModelServer } from "@knightcode/testkit";
import { startServer, type TestServer } from "../support/harness.js";

let model: ScriptedModelServer;
let server: TestServer;

before(async () => {
  model = await ScriptedModelServer.start();
  server = await startServer({ model });
});
after(async () => {
  await server.close();
  await model.close();
});

/**
 * A client shows a call before it is asked about it: by the time an
 * approval request arrives, the `item/started` of its call has arrived on
 * the same connection, and runTurn's iterator has it to yield.
 */
test("an approval request comes after the item/started of the call it is about", async () => {
  const cwd = server.project({ "a.txt": "alpha\n" });
  const client = server.main;
  const { thread } = await client.request("thread/start", { cwd, approvalMode: "ask" });
  model.enqueue(
    { toolCalls: [{ id: "call_order_w", name: "write", arguments: { path: "w.txt", content: "w\n" } }] },
    { toolCalls: [{ id: "call_order_b", name: "bash", arguments: { command: "echo hi" } }] },
    { text: "done" },
  );
  const seenAtAsk: Record<string, boolean> = {};
  const off = client.client.onRequest("item/toolCall/requestApproval", ({ itemId }) => {
    seenAtAsk[itemId] = client.notifications.some((n) => n.method === "item/started" && (n.params as { item: { id: string } }).item.id === itemId);
    return { decision: "accept" };
  });
  try {
    const run = await client.client.runTurn(thread.id, "write, then run");
    const order: string[] = [];
    for await (const { method, params } of run.events) {
      if (method === "item/started" && params.item.type === "toolCall") order.push(`started ${params.item.id}`);
    }
    assert.equal((await run.completed).status, "completed");
    assert.deepEqual(seenAtAsk, { call_order_w: true, call_order_b: true });
    assert.deepEqual(order, ["started call_order_w", "started call_order_b"]);
  } finally {
    off();
  }
  client.assertNoSchemaViolations();
});
