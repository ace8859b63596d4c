import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Asker, type AskOutcome } from "../src/asking/asker.js";
import { PendingRequests } from "../src/asking/pending-requests.js";
import type { Connection } from "../src/rpc/connection.js";
import { waitUntil } from "./support/harness.js";

/** A client that answers every request with `answer`, or never when it has none. */
function fakeClient(holdsRequests: boolean, answer?: unknown): Connection {
  return {
    state: "ready",
    holdsRequests,
    request: (_method: string, _params: unknown, options: { signal?: AbortSignal }) =>
      new Promise((resolve, reject) => {
        if (answer !== undefined) resolve(answer);
        options.signal?.addEventListener("abort", () => reject(new Error("withdrawn")), { once: true });
      }),
  } as unknown as Connection;
}

function harness(holdMs: number) {
  const subscribers: Connection[] = [];
  const requests = new PendingRequests();
  let waits = 0;
  const asker = new Asker({
    threadId: "t1",
    subscribers: () => [...subscribers],
    lastInitiator: () => undefined,
    waitOn: () => {
      waits++;
      return () => waits--;
    },
    holdMs: () => holdMs,
    requests,
  });
  const leave = (client: Connection) => {
    subscribers.splice(subscribers.indexOf(client), 1);
    asker.subscriberLeft(client);
  };
  const join = (client: Connection) => {
    subscribers.push(client);
    asker.subscriberJoined();
  };
  const ask = (signal?: AbortSignal) =>
    asker.ask("ui/dialog", { threadId: "t1", kind: "confirm", title: "Sure?", message: "" }, { kind: "dialog", ...(signal ? { signal } : {}) });
  return { asker, requests, join, leave, ask, waits: () => waits };
}

const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length;

/** Starts asking once `left` (who held requests or not) has left: the hold, if any, has begun when this returns. */
async function askAfterLeaving(h: ReturnType<typeof harness>, holds: boolean, signal?: AbortSignal): Promise<{ asked: Promise<AskOutcome> }> {
  const left = fakeClient(holds);
  h.join(left);
  h.leave(left);
  const asked = h.ask(signal);
  await waitUntil("the request is listed", () => h.requests.size === 1);
  // Wrapped: an async function returning the promise itself would wait for it.
  return { asked };
}

describe("issue 29: the asker's hold", () => {
  test("without the opt-in nobody to ask is unanswered at once, and nothing stays", async () => {
    const h = harness(60_000);
    const left = fakeClient(false);
    h.join(left);
    h.leave(left);
    assert.deepEqual(await h.ask(), { kind: "unanswered" });
    assert.equal(h.requests.size, 0);
    assert.equal(h.waits(), 0);
  });

  test("a hold ends with the next subscriber's answer, by its expiry, by the signal or by close; each time its timer goes", async () => {
    const baseline = timers();
    const joined = harness(60_000);
    const { asked } = await askAfterLeaving(joined, true);
    assert.equal(timers(), baseline + 1);
    joined.join(fakeClient(true, { confirmed: true }));
    assert.deepEqual(await asked, { kind: "answered", result: { confirmed: true } });

    const expired = harness(1);
    assert.deepEqual(await (await askAfterLeaving(expired, true)).asked, { kind: "unattended" });

    const signalled = harness(60_000);
    const interrupt = new AbortController();
    const { asked: stopped } = await askAfterLeaving(signalled, true, interrupt.signal);
    interrupt.abort();
    assert.deepEqual(await stopped, { kind: "unanswered" });

    const closed = harness(60_000);
    const { asked: closing } = await askAfterLeaving(closed, true);
    closed.asker.close();
    assert.deepEqual(await closing, { kind: "unanswered" });

    for (const h of [joined, expired, signalled, closed]) {
      assert.equal(h.requests.size, 0);
      assert.equal(h.waits(), 0);
    }
    assert.equal(timers(), baseline);
  });
});
