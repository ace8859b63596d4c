import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { createServer, IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Socket } from "node:net";
import { after, describe, test } from "node:test";
import { waitUntil } from "@knightcode/testkit";
import { modelFetch } from "../../src/models/http-fetch.js";
import { ModelBody } from "../../src/models/http-response.js";

const servers: Server[] = [];
after(() => {
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
});

/** A server on 127.0.0.1 that starts an event stream for each request and hands its response to the test. */
async function streaming(): Promise<{ origin: string; responses: ServerResponse[] }> {
  const responses: ServerResponse[] = [];
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.flushHeaders();
      responses.push(response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, responses };
}

/** A response's message as Node's client makes it, its bytes pushed by the test in place of a socket's. */
function message(): IncomingMessage {
  const socket = new Socket();
  const incoming = new IncomingMessage(socket);
  incoming.on("close", () => socket.destroy());
  return incoming;
}

const text = (chunk: Uint8Array | undefined) => new TextDecoder().decode(chunk);

describe("a model response's body", () => {
  test("an iteration takes the bytes that arrived in the microtask that asks, ahead of the ticks queued before it", async () => {
    const incoming = message();
    let released = 0;
    const body = new ModelBody(incoming, incoming, undefined, () => released++);
    incoming.push(Buffer.from("data: one\n\n"));
    const iteration = body[Symbol.asyncIterator]();
    let ticked = false;
    process.nextTick(() => {
      ticked = true;
    });
    const first = await iteration.next();
    assert.equal(text(first.value), "data: one\n\n");
    assert.equal(ticked, false, "read before the tick queued ahead of it");
    assert.equal(body.locked, true, "the web stream is held while the iteration reads");
    assert.throws(() => body.getReader(), TypeError);

    const second = iteration.next();
    incoming.push(Buffer.from("data: two\n\n"));
    assert.equal(text((await second).value), "data: two\n\n", "a read that waited takes what comes next");
    incoming.complete = true;
    incoming.push(null);
    assert.deepEqual(await iteration.next(), { done: true, value: undefined });
    assert.equal(released, 1);
    assert.deepEqual(await iteration.next(), { done: true, value: undefined }, "and stays ended");
    assert.equal(released, 1, "released once");
    assert.equal(incoming.listenerCount("readable") + incoming.listenerCount("error"), 0, "nothing left listening");
  });

  test("a reader reads through the web stream, and then an iteration cannot take the body", async () => {
    const incoming = message();
    const body = new ModelBody(incoming, incoming, undefined, () => undefined);
    incoming.push(Buffer.from("a"));
    assert.equal(incoming.listenerCount("data"), 0, "nothing is read before a reader asks");
    const reader = body.getReader();
    assert.equal(text((await reader.read()).value), "a");
    assert.throws(() => body[Symbol.asyncIterator](), TypeError);
    incoming.complete = true;
    incoming.push(null);
    assert.equal((await reader.read()).done, true);
  });

  test("an abort while an iteration waits fails it with the signal's reason and lets go of the signal", async () => {
    const { origin, responses } = await streaming();
    const reading = new AbortController();
    const response = await modelFetch(origin, { method: "POST", body: "{}", signal: reading.signal });
    await waitUntil("the server holding the stream", () => responses.length === 1);
    responses[0]?.write("data: first\n\n");
    const pieces: string[] = [];
    const iterating = (async () => {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        pieces.push(text(chunk));
        reading.abort(new Error("stopped by the user"));
      }
    })();
    await assert.rejects(iterating, /stopped by the user/);
    assert.deepEqual(pieces, ["data: first\n\n"]);
    assert.equal(getEventListeners(reading.signal, "abort").length, 0);
    await waitUntil("the server to see the connection closed", () => responses[0]?.destroyed === true);
  });

  test("an iteration that stops early closes the connection and lets go of the signal; one cut short fails as fetch's does", async () => {
    const { origin, responses } = await streaming();
    const signal = new AbortController().signal;
    const response = await modelFetch(origin, { method: "POST", body: "{}", signal });
    await waitUntil("the server holding the stream", () => responses.length === 1);
    responses[0]?.write("data: first\n\n");
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      assert.equal(text(chunk), "data: first\n\n");
      break;
    }
    assert.equal(getEventListeners(signal, "abort").length, 0);
    await waitUntil("the server to see the connection closed", () => responses[0]?.destroyed === true);

    const cut = await modelFetch(origin, { method: "POST", body: "{}" });
    await waitUntil("the server holding the second stream", () => responses.length === 2);
    responses[1]?.write("data: partial");
    const iteration = (cut.body as unknown as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
    assert.equal(text((await iteration.next()).value), "data: partial");
    responses[1]?.socket?.destroy();
    await assert.rejects(iteration.next(), (error: TypeError) => error instanceof TypeError && error.message === "terminated" && error.cause !== undefined);
  });
});
