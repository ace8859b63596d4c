import assert from "node:assert/strict";
import { test } from "node:test";
import WebSocket from "ws";
import { waitUntil } from "@knightcode/testkit";
import { listen, TOKEN } from "./page-support.js";

/**
 * The WebSocket transport gathers the frames of one turn of the event loop
 * into one write (bench/concurrent.mjs measures what that saves). What a
 * client must see is unchanged: every message, whole, in order, whether
 * it was the first of a quiet moment, one of a burst, or sent after the
 * burst's write.
 */
test("messages sent in bursts and alone arrive whole and in order", async () => {
  const running = await listen();
  const client = new WebSocket(`ws://127.0.0.1:${running.port}/`, { headers: { authorization: `Bearer ${TOKEN}` } });
  const received: string[] = [];
  client.on("message", (data) => received.push(String(data)));
  try {
    await new Promise((resolve, reject) => {
      client.once("open", resolve);
      client.once("error", reject);
    });
    const server = await waitUntil("the connection", () => running.accepted[0]);
    const sent: string[] = [];
    const send = (text: string) => {
      sent.push(text);
      server.send(text);
    };
    send(JSON.stringify({ method: "alone", params: { n: 0 } }));
    // A burst in one turn, large enough to fill several socket writes, with a message of 200 KB among them.
    for (let n = 1; n <= 2_000; n++) send(JSON.stringify({ method: "burst", params: { n, text: n === 1_000 ? "x".repeat(200_000) : `w${n}` } }));
    await new Promise((resolve) => setImmediate(resolve));
    send(JSON.stringify({ method: "after", params: { n: 2_001 } }));
    await new Promise((resolve) => setTimeout(resolve, 0));
    send(JSON.stringify({ method: "later", params: { n: 2_002 } }));
    await waitUntil("every message", () => received.length >= sent.length, 20_000);
    assert.equal(received.length, sent.length);
    assert.deepEqual(received, sent);
    assert.equal(server.backlog(), 0, "nothing is left held once the turn is over");
  } finally {
    client.close();
    await running.stop();
  }
});
