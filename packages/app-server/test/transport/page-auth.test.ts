import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { bearerProtocol, listen, makePageRoot, TOKEN, upgrade, type PageFixture, type RunningListener } from "./page-support.js";

describe("browser auth on the page's listener (docs/protocol.md: the token as a subprotocol)", () => {
  let fixture: PageFixture;
  let running: RunningListener;
  before(async () => {
    fixture = makePageRoot();
    running = await listen({ page: { root: fixture.root }, allowedOrigins: ["http://allowed.test"] });
  });
  after(async () => {
    await running.stop();
    fixture.remove();
  });

  test("the token as a bearer subprotocol opens the socket, and the answer is the plain subprotocol", async () => {
    const before = running.accepted.length;
    const outcome = await upgrade(running.port, { protocols: ["knightcode", bearerProtocol(TOKEN)], origin: `http://127.0.0.1:${running.port}` });
    assert.deepEqual(outcome, { opened: true, protocol: "knightcode", answeredProtocol: "knightcode" });
    assert.equal(running.accepted.length, before + 1);
  });

  test("the page's origin under each of the listener's names is allowed; the Authorization header still works", async () => {
    const { port } = running;
    for (const origin of [`http://127.0.0.1:${port}`, `http://localhost:${port}`, "http://allowed.test", undefined]) {
      const outcome = await upgrade(port, {
        protocols: ["knightcode", bearerProtocol(TOKEN)],
        origin,
        host: origin?.includes("localhost") ? `localhost:${port}` : undefined,
      });
      assert.equal(outcome.opened, true, String(origin));
    }
    const withHeader = await upgrade(port, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(withHeader.opened, true);
  });

  test("a wrong, truncated, malformed or missing token is 401", async () => {
    const { port } = running;
    const origin = `http://127.0.0.1:${port}`;
    for (const protocols of [
      ["knightcode"],
      ["knightcode", bearerProtocol(TOKEN.slice(0, -1))],
      ["knightcode", bearerProtocol(TOKEN + "x")],
      ["knightcode", bearerProtocol("")],
      ["knightcode", `knightcode.bearer.${TOKEN}!`],
      ["knightcode", `knightcode.bearer.${Buffer.from(`Bearer ${TOKEN}`).toString("base64url")}`],
      ["knightcode", `knightcode.Bearer.${Buffer.from(TOKEN).toString("base64url")}`],
    ]) {
      const outcome = await upgrade(port, { protocols, origin });
      assert.deepEqual(outcome, { opened: false, status: 401 }, protocols[1] ?? "(no token)");
    }
  });

  test("a foreign Origin is 403 even with the token", async () => {
    const { port } = running;
    for (const origin of ["http://evil.test", `http://127.0.0.1:${port + 1}`, `https://127.0.0.1:${port}`, "null"]) {
      const outcome = await upgrade(port, { protocols: ["knightcode", bearerProtocol(TOKEN)], origin });
      assert.deepEqual(outcome, { opened: false, status: 403 }, origin);
    }
  });

  test("an upgrade whose Host does not name the listener is refused before the token is looked at", async () => {
    const { port } = running;
    for (const host of ["evil.test", `evil.test:${port}`, `127.0.0.1:${port + 1}`]) {
      const outcome = await upgrade(port, { protocols: ["knightcode", bearerProtocol(TOKEN)], host, origin: `http://${host}` });
      assert.deepEqual(outcome, { opened: false, status: 421 }, host);
    }
  });
});

describe("without a page", () => {
  test("the page origins are not allowed, and Host is not checked", async () => {
    const running = await listen();
    try {
      const { port } = running;
      const fromPage = await upgrade(port, { protocols: ["knightcode", bearerProtocol(TOKEN)], origin: `http://127.0.0.1:${port}` });
      assert.deepEqual(fromPage, { opened: false, status: 403 });
      const otherHost = await upgrade(port, { protocols: ["knightcode", bearerProtocol(TOKEN)], host: "elsewhere.test" });
      assert.equal(otherHost.opened, true);
    } finally {
      await running.stop();
    }
  });
});
