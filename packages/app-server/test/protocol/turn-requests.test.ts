import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { TurnEvent, TurnRequestEvent } from "@knightcode/app-server-client";
import { ScriptedModelServer } from "@knightcode/testkit";
import { startServer, type TestServer } from "../support/harness.js";

let model: ScriptedModelServer;
let server: TestServer;
let cwd: string;

before(async () => {
  model = await ScriptedModelServer.start();
  server = await startServer({ model });
  cwd = server.project({ "a.txt": "alpha\n" });
});
after(async () => {
  await server.close();
  await model.close();
});

/** What a test reads of an event: a notification's method (with the item for item events), or the request it is. */
function label(event: TurnEvent | TurnRequestEvent): string {
  if ("request" in event) return `ask ${event.method}${"itemId" in event.params ? ` ${event.params.itemId}` : ""}`;
  if (event.method === "item/started" || event.method === "item/completed") return `${event.method} ${event.params.item.id}`;
  return event.method;
}

/** Records the approvals that reach the handler: with the option, none of the turn's should. */
function handlerWatch() {
  const handled: string[] = [];
  const off = server.main.client.onRequest("item/toolCall/requestApproval", ({ itemId }) => {
    handled.push(itemId);
    return { decision: "decline", message: "answered by the handler" };
  });
  return { handled, off };
}

describe("runTurn({requests: true}): the turn's server requests come through its events", () => {
  test("an approval comes after its call's item/started; respond accepts it and the tool runs; the handler sees nothing", async () => {
    const { thread } = await server.main.request("thread/start", { cwd, approvalMode: "ask" });
    model.enqueue({ toolCalls: [{ id: "call_iter_w", name: "write", arguments: { path: "iter.txt", content: "from the iterator\n" } }] }, { text: "done" });
    const watch = handlerWatch();
    try {
      const run = await server.main.client.runTurn(thread.id, "write it", { requests: true });
      const order: string[] = [];
      for await (const event of run.events) {
        const seen = label(event);
        if (seen.startsWith("item/") || seen.startsWith("ask ")) order.push(seen);
        if (event.method === "item/toolCall/requestApproval") {
          assert.equal(event.params.tool, "write");
          assert.equal(event.request.respond({ decision: "accept" }), true);
        }
      }
      assert.equal((await run.completed).status, "completed");
      const call = order.filter((line) => line.endsWith("call_iter_w"));
      assert.deepEqual(call, ["item/started call_iter_w", "ask item/toolCall/requestApproval call_iter_w", "item/completed call_iter_w"]);
      assert.deepEqual(watch.handled, []);
      assert.ok(existsSync(join(cwd, "iter.txt")));
    } finally {
      watch.off();
    }
    server.main.assertNoSchemaViolations();
  });

  test("a decline through respond reaches the model, and the call reads declined", async () => {
    const { thread } = await server.main.request("thread/start", { cwd, approvalMode: "ask" });
    model.enqueue({ toolCalls: [{ id: "call_iter_b", name: "bash", arguments: { command: "touch iter-bash.txt" } }] }, { text: "done" });
    const mark = model.requests.length;
    const run = await server.main.client.runTurn(thread.id, "run it", { requests: true });
    let status: string | undefined;
    for await (const event of run.events) {
      if (event.method === "item/toolCall/requestApproval") event.request.respond({ decision: "decline", message: "not from the iterator" });
      if (event.method === "item/completed" && event.params.item.id === "call_iter_b" && "status" in event.params.item) status = event.params.item.status;
    }
    assert.equal((await run.completed).status, "completed");
    assert.equal(status, "declined");
    assert.equal(existsSync(join(cwd, "iter-bash.txt")), false);
    assert.match(JSON.stringify(model.requests.slice(mark)), /not from the iterator/);
    server.main.assertNoSchemaViolations();
  });

  test("without the option the approval goes to the handler, as ever, and the events hold notifications only", async () => {
    const { thread } = await server.main.request("thread/start", { cwd, approvalMode: "ask" });
    model.enqueue({ toolCalls: [{ id: "call_iter_h", name: "write", arguments: { path: "handler.txt", content: "x\n" } }] }, { text: "done" });
    const watch = handlerWatch();
    try {
      const run = await server.main.client.runTurn(thread.id, "write it");
      const requests: string[] = [];
      for await (const event of run.events) if ("request" in event) requests.push(label(event));
      assert.equal((await run.completed).status, "completed");
      assert.deepEqual(requests, []);
      assert.deepEqual(watch.handled, ["call_iter_h"]);
      assert.equal(existsSync(join(cwd, "handler.txt")), false);
    } finally {
      watch.off();
    }
    server.main.assertNoSchemaViolations();
  });

  test("interrupting the turn while it asks withdraws the request: its event's signal aborts and respond sends nothing", async () => {
    const { thread } = await server.main.request("thread/start", { cwd, approvalMode: "ask" });
    model.enqueue({ toolCalls: [{ id: "call_iter_i", name: "bash", arguments: { command: "touch iter-interrupted.txt" } }] });
    const run = await server.main.client.runTurn(thread.id, "run it", { requests: true });
    let withdrawn: Promise<unknown> | undefined;
    let respondAfter: boolean | undefined;
    for await (const event of run.events) {
      if (event.method === "item/toolCall/requestApproval") {
        const { signal } = event.request;
        withdrawn = new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
        await server.main.request("turn/interrupt", { threadId: thread.id, turnId: run.turnId });
        await withdrawn;
        respondAfter = event.request.respond({ decision: "accept" });
      }
    }
    assert.ok(withdrawn, "the approval came through the events");
    assert.equal(respondAfter, false);
    assert.equal((await run.completed).status, "interrupted");
    assert.equal(existsSync(join(cwd, "iter-interrupted.txt")), false);
    server.main.assertNoSchemaViolations();
  });
});
