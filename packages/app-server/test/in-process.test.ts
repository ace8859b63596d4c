import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { AppServerClient, createMemoryTransportPair } from "@knightcode/app-server-client";
import { AppServer, ServerContext, asServerTransport, createLogger, type HandlerTable } from "../src/index.js";
import { handlers } from "../src/handlers.js";
import { TestClient, waitUntil } from "./support/harness.js";
import { manualClock } from "./support/manual-clock.js";

const quietLog = createLogger({ level: "error" });

function makeServer(overrides: Partial<HandlerTable> = {}) {
  const context = new ServerContext({ log: quietLog, agentDir: "/nonexistent/agent" });
  const server = new AppServer({ context, handlers: { ...handlers, ...overrides } });
  const connect = (label: string) => {
    const [clientEnd, serverEnd] = createMemoryTransportPair();
    const connection = server.connect(asServerTransport(serverEnd), "memory");
    return { client: new TestClient(clientEnd, label), connection };
  };
  return { context, server, connect };
}

describe("spec: Limits and client reference (createInProcessClient)", () => {
  test("an in-process client does the handshake and gets the same answers", async () => {
    const { createInProcessClient } = await import("../src/index.js");
    const context = new ServerContext({ log: quietLog });
    const server = new AppServer({ context });
    const client = createInProcessClient(server);
    const result = await client.initialize({ clientInfo: { name: "host" } });
    assert.equal(result.serverInfo.name, "knightcode-app-server");
    const diagnostics = await client.request("server/diagnostics", {});
    assert.equal(diagnostics.loadedThreads, 0);
    await server.shutdown("test over");
  });

  test("messages over the in-memory transport validate against the schema", async () => {
    const { server, connect } = makeServer();
    const { client } = connect("memory");
    await client.initialize(["no/such"]);
    await client.request("server/diagnostics", {});
    client.sendRaw("not json");
    await client.waitForNotification("error");
    client.assertNoSchemaViolations();
    await server.shutdown("test over");
  });
});

/** Shutdown's deadlines in the test's hand: each fires when the test says, and says how long it was set for. */
/** A handler of server/diagnostics that waits for the test's release, and says when it started and when it returned. */
function heldDiagnostics() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const state: { signal?: AbortSignal; returned: boolean } = { returned: false };
  const handler: HandlerTable["server/diagnostics"] = async (params, ctx) => {
    state.signal = ctx.signal;
    await released;
    const result = handlers["server/diagnostics"](params, ctx);
    state.returned = true;
    return result;
  };
  return { handler, release, state };
}

describe("spec: Ownership, unloading, and shutdown (deadlines)", () => {
  test("an accepted request that finishes during shutdown still gets its result", async () => {
    const held = heldDiagnostics();
    const { server, connect } = makeServer({ "server/diagnostics": held.handler });
    const { client } = connect("memory");
    await client.initialize();
    const pending = client.request("server/diagnostics", {});
    await waitUntil("the handler to start", () => held.state.signal);
    const shutdown = server.shutdown("test");
    held.release();
    const result = await pending;
    assert.ok(result.uptimeMs >= 0);
    await shutdown;
  });

  test("an unfinished request is answered shuttingDown at the nine-second deadline, and a late result is dropped", async () => {
    const held = heldDiagnostics();
    const { server, connect } = makeServer({ "server/diagnostics": held.handler });
    const { client } = connect("memory");
    await client.initialize();
    client.sendRaw({ id: "stuck", method: "server/diagnostics", params: {} });
    await waitUntil("the handler to start", () => held.state.signal);
    const time = manualClock();
    const shutdown = server.shutdown("test", { clock: time.clock });
    await waitUntil("the deadlines to be set", () => time.asked().length === 2 || undefined);
    assert.deepEqual(time.asked(), [9_000, 10_000], "answers at nine seconds, exits by ten");
    assert.equal(client.rawResponses.has("stuck"), false, "nothing is answered before the deadline");
    time.fire(9_000);
    const answer = await waitUntil("the deadline answer", () => client.rawResponses.get("stuck"));
    assert.equal(answer.error?.code, "shuttingDown");
    assert.equal(held.state.signal!.aborted, true, "the handler's signal is aborted at the deadline");
    held.release();
    await waitUntil("the late result", () => held.state.returned || undefined);
    time.fire(10_000);
    await shutdown;
    assert.equal(client.responseCounts.get("stuck"), 1);
    client.assertNoSchemaViolations();
  });

  test("requests arriving once shutdown began are refused with shuttingDown or not read at all", async () => {
    const { server, connect } = makeServer();
    const { client, connection } = connect("memory");
    await client.initialize();
    const shutdown = server.shutdown("test");
    // Input stopped: this request is never read, so it is never answered.
    client.sendRaw({ id: "late", method: "server/diagnostics", params: {} });
    await shutdown;
    assert.equal(client.rawResponses.has("late"), false);
    assert.equal(connection.state, "closed");
  });
});

/** Server requests of methods the table does not have yet: a plain client, since the schema cannot judge them. */
function connectPlain(server: AppServer) {
  const [clientEnd, serverEnd] = createMemoryTransportPair();
  const connection = server.connect(asServerTransport(serverEnd), "memory");
  const client = new AppServerClient(clientEnd);
  const cancelled: unknown[] = [];
  client.onNotification("serverRequest/cancelled", (params) => cancelled.push(params));
  return { client, connection, cancelled };
}

describe("server requests", () => {
  test("use their own id sequence, resolve with the client's answer and can be withdrawn", async () => {
    const { server } = makeServer();
    const { client, connection, cancelled } = connectPlain(server);
    await client.initialize({ clientInfo: { name: "t" } });
    const seen: unknown[] = [];
    client.onRequest(
      "test/ask" as never,
      ((params: { n: number }) => {
        seen.push(params);
        return { doubled: params.n * 2 };
      }) as never,
    );
    // Client ids 1.. and server ids s1.. never collide, whatever the client picks.
    const ask = connection.request as unknown as (m: string, p: unknown, o?: { signal?: AbortSignal }) => Promise<unknown>;
    assert.deepEqual(await ask.call(connection, "test/ask", { n: 2 }), { doubled: 4 });
    assert.deepEqual(await ask.call(connection, "test/ask", { n: 5 }), { doubled: 10 });
    const controller = new AbortController();
    let asked = false;
    client.onRequest("test/slow" as never, (() => ((asked = true), new Promise(() => undefined))) as never);
    const slow = ask.call(connection, "test/slow", {}, { signal: controller.signal });
    await waitUntil("the client to be asked", () => asked || undefined);
    controller.abort();
    await assert.rejects(slow, /withdrawn/);
    await waitUntil("the withdrawal", () => cancelled.length > 0 || undefined);
    assert.deepEqual(cancelled, [{ requestId: "s3" }]);
    assert.deepEqual(seen, [{ n: 2 }, { n: 5 }]);
    await server.shutdown("test over");
  });

  test("a closed connection rejects the server's outstanding requests", async () => {
    const { server } = makeServer();
    const { client, connection } = connectPlain(server);
    await client.initialize({ clientInfo: { name: "t" } });
    let asked = false;
    client.onRequest("test/slow" as never, (() => ((asked = true), new Promise(() => undefined))) as never);
    const ask = connection.request as unknown as (m: string, p: unknown) => Promise<unknown>;
    const pending = ask.call(connection, "test/slow", {});
    await waitUntil("the client to be asked", () => asked || undefined);
    await client.close();
    await assert.rejects(pending, /closed/);
    await server.shutdown("test over");
  });
});
