import assert from "node:assert/strict";
import { test } from "node:test";
import { AppServerClient, createMemoryTransportPair, type TurnEvent, type TurnOptions, type TurnRequestEvent } from "../src/index.js";

/*
 * runTurn's `requests` option against a hand-driven peer: the test plays the
 * server, so which request is whose, and what is answered when, is exact.
 * The same behaviour against the real server is in
 * app-server/test/protocol/turn-requests.test.ts.
 */

const THREAD = "thread-1";
const TURN = "turn-1";

function peer() {
  const [clientEnd, peerEnd] = createMemoryTransportPair();
  const received: Record<string, unknown>[] = [];
  let arrived: (() => void) | undefined;
  peerEnd.onMessage((text) => {
    received.push(JSON.parse(text));
    arrived?.();
  });
  const client = new AppServerClient(clientEnd);
  const send = (message: unknown) => peerEnd.send(JSON.stringify(message));
  /** The first message from the client that `match` accepts, waiting for it if it has not come. */
  const sent = async (match: (message: Record<string, unknown>) => boolean) => {
    for (;;) {
      const found = received.find(match);
      if (found) return found;
      await new Promise<void>((resolve) => (arrived = resolve));
    }
  };
  /** Starts a turn through runTurn and plays the server's side of it up to `turn/started`. */
  const start = async <O extends TurnOptions>(options?: O) => {
    const running = client.runTurn(THREAD, "go", options);
    const turnStart = await sent((m) => m.method === "turn/start");
    const { requestId } = turnStart.params as { requestId: string };
    send({ id: turnStart.id, result: { status: "started" } });
    send({ method: "turn/started", params: { threadId: THREAD, requestId, turn: { id: TURN, status: "inProgress", items: [] } } });
    return running;
  };
  const notify = (method: string, params: Record<string, unknown>) => send({ method, params });
  const ask = (id: string, method: string, params: Record<string, unknown>) => send({ id, method, params });
  const complete = () => notify("turn/completed", { threadId: THREAD, turn: { id: TURN, status: "completed", items: [] } });
  const approval = (itemId: string, turnId = TURN) => ({ threadId: THREAD, turnId, itemId, tool: "write", decisions: ["accept", "decline"] });
  const flush = () => new Promise((resolve) => setImmediate(resolve));
  return { client, received, sent, send, start, notify, ask, complete, approval, flush, peerEnd };
}

function label(event: TurnEvent | TurnRequestEvent): string {
  if ("request" in event) return `request ${event.method}`;
  return event.method;
}

test("with requests: true, an approval is yielded after its call's item/started, answered by respond, and no handler sees it", async () => {
  const p = peer();
  const handled: unknown[] = [];
  p.client.onRequest("item/toolCall/requestApproval", (params) => {
    handled.push(params);
    return { decision: "decline" };
  });
  const run = await p.start({ requests: true });
  p.notify("item/started", { threadId: THREAD, turnId: TURN, item: { id: "call_1", type: "toolCall", name: "write", status: "inProgress" } });
  p.ask("s1", "item/toolCall/requestApproval", p.approval("call_1"));
  const order: string[] = [];
  for await (const event of run.events) {
    order.push(label(event));
    if (event.method === "item/toolCall/requestApproval") {
      assert.equal(event.params.itemId, "call_1");
      assert.equal(event.request.requestId, "s1");
      assert.equal(event.request.respond({ decision: "accept" }), true);
      assert.equal(event.request.respond({ decision: "decline" }), false, "a second answer is not sent");
      await p.sent((m) => m.id === "s1");
      p.notify("item/completed", { threadId: THREAD, turnId: TURN, item: { id: "call_1", type: "toolCall", name: "write", status: "completed" } });
      p.complete();
    }
  }
  assert.deepEqual(order, ["turn/started", "item/started", "request item/toolCall/requestApproval", "item/completed", "turn/completed"]);
  assert.deepEqual(
    p.received.filter((m) => m.id === "s1"),
    [{ id: "s1", result: { decision: "accept" } }],
  );
  assert.deepEqual(handled, []);
  assert.equal((await run.completed).status, "completed");
});

test("without the option, the turn's requests go to the handlers as before and the events hold only notifications", async () => {
  const p = peer();
  const handled: string[] = [];
  p.client.onRequest("item/toolCall/requestApproval", ({ itemId }) => {
    handled.push(itemId);
    return { decision: "decline", message: "no" };
  });
  const run = await p.start();
  p.ask("s1", "item/toolCall/requestApproval", p.approval("call_1"));
  await p.sent((m) => m.id === "s1");
  p.complete();
  const order: string[] = [];
  for await (const event of run.events) order.push(label(event));
  assert.deepEqual(order, ["turn/started", "turn/completed"]);
  assert.deepEqual(handled, ["call_1"]);
  assert.deepEqual(
    p.received.find((m) => m.id === "s1"),
    { id: "s1", result: { decision: "decline", message: "no" } },
  );
});

test("only the run's own turn is taken: another turn's request and a dialog without turnId go to the handlers", async () => {
  const p = peer();
  const handled: string[] = [];
  p.client.onRequest("item/toolCall/requestApproval", ({ turnId }) => {
    handled.push(`approval of ${turnId}`);
    return { decision: "accept" };
  });
  p.client.onRequest("ui/dialog", (params) => {
    handled.push(`dialog ${params.turnId ?? "without turn"}`);
    return {};
  });
  const run = await p.start({ requests: true });
  p.ask("other", "item/toolCall/requestApproval", p.approval("call_x", "turn-other"));
  p.ask("threadless", "ui/dialog", { threadId: THREAD, title: "Pick", kind: "select", options: ["a", "b"] });
  p.ask("ours", "ui/dialog", { threadId: THREAD, turnId: TURN, title: "Review the plan", kind: "select", options: ["Approve", "Revise"] });
  await p.sent((m) => m.id === "threadless");
  await p.sent((m) => m.id === "other");
  p.complete();
  const taken: string[] = [];
  for await (const event of run.events) {
    if (event.method === "ui/dialog") {
      taken.push(event.params.title);
      event.request.respond({ value: "Approve" });
    }
  }
  assert.deepEqual(taken, ["Review the plan"]);
  assert.deepEqual(handled.sort(), ["approval of turn-other", "dialog without turn"]);
  assert.deepEqual(
    p.received.find((m) => m.id === "ours"),
    { id: "ours", result: { value: "Approve" } },
  );
});

test("a withdrawn request aborts its event's signal and respond sends nothing", async () => {
  const p = peer();
  const run = await p.start({ requests: true });
  p.ask("s1", "item/toolCall/requestUserInput", { threadId: THREAD, turnId: TURN, itemId: "call_q", questions: [] });
  const iterator = run.events[Symbol.asyncIterator]();
  await iterator.next();
  const { value } = await iterator.next();
  assert.ok(value && value.method === "item/toolCall/requestUserInput");
  const aborted = new Promise((resolve) => value.request.signal.addEventListener("abort", resolve, { once: true }));
  p.notify("serverRequest/cancelled", { threadId: THREAD, requestId: "s1" });
  await aborted;
  assert.equal(value.request.respond({ answers: {} }), false);
  p.complete();
  await run.completed;
  await p.flush();
  assert.equal(
    p.received.some((m) => m.id === "s1"),
    false,
  );
});

test("an unanswered request stays pending until the connection closes, which aborts its signal", async () => {
  const p = peer();
  const run = await p.start({ requests: true });
  p.ask("s1", "item/toolCall/requestApproval", p.approval("call_1"));
  const iterator = run.events[Symbol.asyncIterator]();
  await iterator.next();
  const { value } = await iterator.next();
  assert.ok(value && "request" in value);
  await p.flush();
  assert.equal(value.request.signal.aborted, false);
  assert.equal(
    p.received.some((m) => m.id === "s1"),
    false,
  );
  p.peerEnd.close();
  const error = await run.completed.catch((e: unknown) => e);
  assert.equal((error as { kind?: string }).kind, "closed");
  assert.equal(value.request.signal.aborted, true);
  assert.equal(value.request.respond({ decision: "accept" }), false);
});

test("once the run has ended, a later request of the thread goes to the handlers again", async () => {
  const p = peer();
  const handled: string[] = [];
  p.client.onRequest("item/toolCall/requestApproval", ({ itemId }) => {
    handled.push(itemId);
    return { decision: "accept" };
  });
  const run = await p.start({ requests: true });
  p.complete();
  for await (const _ of run.events);
  p.ask("late", "item/toolCall/requestApproval", p.approval("call_late"));
  await p.sent((m) => m.id === "late");
  assert.deepEqual(handled, ["call_late"]);
});
