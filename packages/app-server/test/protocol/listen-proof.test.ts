import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import WebSocket from "ws";
import { ReconnectingClient } from "@knightcode/app-server-client";
import { Impostor, otherUser } from "@knightcode/testkit";
import { type TestServer, startServer, waitUntil } from "../support/harness.js";

// Issue 27, door 8: a restarted server's port taken by another user; a client never sends the token
// to a listener that has not shown it is ours.
const TOKEN = "listen-proof-token-0123456789abcdef0123456789";
const CLIENT_INFO = { clientInfo: { name: "listen-proof-test", version: "0" } };

let dir: string;
before(() => (dir = mkdtempSync(join(tmpdir(), "kc-listen-proof-"))));
after(() => rmSync(dir, { recursive: true, force: true }));

async function listening(readyFile: string): Promise<{ server: TestServer; port: number }> {
  const server = await startServer({ args: ["--listen", "ws://127.0.0.1:0", "--listen-ready-file", readyFile], env: { KNIGHTCODE_APP_SERVER_TOKEN: TOKEN } });
  const url = (await server.waitForStderr(/listening on (ws:\S+)/))[1]!;
  return { server, port: Number(new URL(url).port) };
}

/** Whether anything the impostor received carries the token, as text, in a header or base64url-encoded. */
function leaked(impostor: Impostor): boolean {
  const received = impostor.received;
  return received.includes(TOKEN) || received.includes(Buffer.from(TOKEN).toString("base64url")) || received.includes(Buffer.from(TOKEN).toString("base64"));
}

describe("door 8: the listener proves it holds the token before a client gives anything away", () => {
  test("the server dies and another user takes its port: the reconnecting client sends nothing and stops, untrusted", async () => {
    const readyFile = join(dir, "taken.json");
    const { server, port } = await listening(readyFile);
    const client = await ReconnectingClient.connect({ readyFile, token: TOKEN, initialize: CLIENT_INFO, retryDelaysMs: [50] });
    let impostor: Impostor | undefined;
    try {
      server.transport.child.kill("SIGKILL");
      await server.waitForExit();
      const taken = await Impostor.start({ port, mode: "answer", user: otherUser() });
      impostor = taken;
      await waitUntil("the client to reach the impostor", () => taken.records.some((record) => record.kind === "upgrade") || undefined);
      assert.ok(!leaked(taken), `the token reached the impostor:\n${taken.received}`);
      const reason = (await client.closed) as { kind?: string; message?: string } | undefined;
      assert.equal(reason?.kind, "untrusted", String(reason?.message));
      assert.match(reason!.message!, /did not prove that it holds this token.*the token was not sent/);
      assert.ok(!leaked(taken), `the token reached the impostor:\n${taken.received}`);
      assert.deepEqual(
        taken.records.filter((record) => record.kind === "message"),
        [],
        "not even a proof of the token was sent",
      );
    } finally {
      await client.close();
      await impostor?.close();
      server.cleanup();
    }
  });

  test("an impostor relaying to a real server of ours on another port borrows a proof for the wrong address, and gets nothing", async () => {
    const readyFile = join(dir, "relayed.json");
    const { server, port } = await listening(readyFile);
    const other = await listening(join(dir, "other.json"));
    const client = await ReconnectingClient.connect({ readyFile, token: TOKEN, initialize: CLIENT_INFO, retryDelaysMs: [50] });
    let impostor: Impostor | undefined;
    try {
      server.transport.child.kill("SIGKILL");
      await server.waitForExit();
      const relay = await Impostor.start({ port, mode: "relay", relayTo: other.port, user: otherUser() });
      impostor = relay;
      await waitUntil("the client to go through the relay", () => relay.records.some((record) => record.kind === "bytes") || undefined);
      assert.ok(!leaked(relay), "the token crossed the relay");
      const reason = (await client.closed) as { kind?: string; message?: string } | undefined;
      assert.equal(reason?.kind, "untrusted", String(reason?.message));
      assert.ok(!leaked(relay), "the token crossed the relay");
    } finally {
      await client.close();
      await impostor?.close();
      server.cleanup();
      await other.server.close();
    }
  });
});

/** A raw WebSocket that asks for the listener's proof, as a client of any language would. */
async function challenge(
  url: string,
  nonce: string,
): Promise<{ socket: WebSocket; first: Record<string, unknown>; closed: Promise<number>; next: () => Promise<string> }> {
  const socket = new WebSocket(url, ["knightcode", `knightcode.challenge.${nonce}`]);
  const texts: string[] = [];
  socket.on("message", (data) => texts.push(data.toString()));
  const closed = new Promise<number>((resolve) => socket.once("close", (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  let read = 0;
  const next = () => waitUntil("a message from the listener", () => (texts[read] !== undefined ? texts[read++] : undefined));
  return { socket, first: JSON.parse(await next()) as Record<string, unknown>, closed, next };
}

describe("the challenge, from the server's side", () => {
  let server: TestServer;
  let url: string;
  before(async () => {
    server = await startServer({ args: ["--listen", "ws://127.0.0.1:0"], env: { KNIGHTCODE_APP_SERVER_TOKEN: TOKEN } });
    url = (await server.waitForStderr(/listening on (ws:\S+)/))[1]!;
  });
  after(async () => await server.close());

  test("the listener's proof names the address the client reached and a fresh nonce of its own", async () => {
    const { socket, first } = await challenge(url, "a".repeat(43));
    assert.equal(first.type, "listener/proof");
    assert.equal(first.address, new URL(url).host);
    assert.match(String(first.nonce), /^[A-Za-z0-9_-]{43}$/);
    assert.match(String(first.proof), /^[A-Za-z0-9_-]{43}$/);
    const again = await challenge(url, "a".repeat(43));
    assert.notEqual(again.first.nonce, first.nonce);
    socket.close();
    again.socket.close();
  });

  for (const [label, answer] of [
    ["a wrong proof", JSON.stringify({ type: "client/proof", proof: "x".repeat(43) })],
    ["a JSON-RPC request instead of a proof", JSON.stringify({ id: 1, method: "initialize", params: CLIENT_INFO })],
    ["the listener's own proof sent back", undefined],
  ] as const) {
    test(`${label} is closed with 4401 and never reaches the server`, async () => {
      const { socket, first, closed } = await challenge(url, "b".repeat(43));
      socket.send(answer ?? JSON.stringify({ type: "client/proof", proof: first.proof }));
      assert.equal(await closed, 4401);
    });
  }

  test("a challenge without a well-formed nonce is a missing token: 401 before the upgrade", async () => {
    const socket = new WebSocket(url, ["knightcode", "knightcode.challenge.short"]);
    socket.on("error", () => undefined);
    const status = await new Promise<number>((resolve) => socket.once("unexpected-response", (_request, response) => resolve(response.statusCode ?? 0)));
    socket.terminate();
    assert.equal(status, 401);
  });
});
