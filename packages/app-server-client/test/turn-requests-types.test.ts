import assert from "node:assert/strict";
import { test } from "node:test";
import type { AppServerClient, ReconnectingClient, TurnEvent, TurnOptions, TurnRequestEvent, TurnRun } from "../src/index.js";

/*
 * What the compiler makes of runTurn's `requests` option: the `@ts-expect-error`
 * lines fail the build the day a request's event stops narrowing (an unused
 * `@ts-expect-error` is itself an error). The functions are never called.
 */

type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <A, B>(proof: Same<A, B>) => proof;
type EventsOf<R> = R extends Promise<TurnRun<infer E>> ? E : never;

async function answerFromTheIterator(client: AppServerClient): Promise<void> {
  const run = await client.runTurn("t", "go", { requests: true, timeoutMs: 1000 });
  for await (const event of run.events) {
    // @ts-expect-error before `method` is checked, respond takes no one method's answer
    event.request?.respond({ decision: "accept" });
    if (event.method === "item/toolCall/requestApproval") {
      const itemId: string = event.params.itemId;
      event.request.respond({ decision: "decline", message: `not ${itemId}` });
      // @ts-expect-error an approval is answered with a decision, not a dialog's value
      event.request.respond({ value: "Approve" });
      // @ts-expect-error a decision is one of the spec's
      event.request.respond({ decision: "maybe" });
    } else if (event.method === "ui/dialog") {
      event.request.respond({ confirmed: true });
      // @ts-expect-error a dialog has no itemId
      void event.params.itemId;
      // @ts-expect-error a dialog is answered with a value or confirmed, not a decision
      event.request.respond({ decision: "accept" });
    } else if (event.method === "item/toolCall/requestUserInput") {
      event.request.respond({ answers: {} });
    } else if (event.method === "item/agentMessage/delta") {
      const delta: string = event.params.delta;
      void delta;
      // @ts-expect-error a notification carries no request
      void event.request;
    }
  }
}

async function withoutTheOption(client: AppServerClient, reconnecting: ReconnectingClient): Promise<void> {
  const run = await client.runTurn("t", "go");
  for await (const event of run.events) {
    // @ts-expect-error without the option no request comes through the events
    if (event.method === "item/toolCall/requestApproval") return;
  }
  same<EventsOf<ReturnType<typeof client.runTurn<{ timeoutMs: number }>>>, TurnEvent>(true);
  same<EventsOf<ReturnType<typeof client.runTurn<{ requests: false }>>>, TurnEvent>(true);
  same<EventsOf<ReturnType<typeof client.runTurn<{ requests: true }>>>, TurnEvent | TurnRequestEvent>(true);
  // A flag not known to be false may bring requests, so they are in the type.
  same<EventsOf<ReturnType<typeof client.runTurn<{ requests: boolean }>>>, TurnEvent | TurnRequestEvent>(true);
  same<EventsOf<ReturnType<typeof client.runTurn<TurnOptions>>>, TurnEvent | TurnRequestEvent>(true);
  const passedOn = await reconnecting.runTurn("t", "go", { requests: true });
  same<typeof passedOn, TurnRun<TurnEvent | TurnRequestEvent>>(true);
}

test("the request events' types narrow on method (checked when this file compiles)", () => {
  assert.equal(typeof answerFromTheIterator, "function");
  assert.equal(typeof withoutTheOption, "function");
});
