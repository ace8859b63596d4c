import assert from "node:assert/strict";
import { test } from "node:test";
import type { RequestId } from "@knightcode/app-server-protocol";
import { startServer, waitUntil } from "../support/harness.js";
import { Random, seedFromEnv } from "../support/random.js";

const LINES = 12_000;

/**
 * Malformed and random lines of every kind the issue names, interleaved with
 * well-formed requests whose answers are counted. Returns the line and, for a
 * well-formed request, its id.
 */
function makeLine(random: Random, n: number): { line: string | Buffer; id?: RequestId } {
  const id = `w${n}`;
  const deep = (depth: number, open: string, close: string) => open.repeat(depth) + close.repeat(depth);
  switch (random.int(16)) {
    case 0:
      return { line: random.pick(["{", "}", '{"id":', "nul", "[", '{"method":"server/diagnostics"', "{'id':1}", "\u0000", "{}}"]) };
    case 1:
      return { line: random.bytes(1 + random.int(200)) };
    case 2:
      return { line: JSON.stringify(random.pick([1, "s", null, true, [], [1, { id: 1 }], -0, 1e308])) };
    case 3:
      return { line: deep(1 + random.int(20_000), "[", "]") };
    case 4:
      return { line: `{"id":"${id}","method":"server/diagnostics","params":${deep(1 + random.int(20_000), '{"a":', "}").replace(/\{"a":\}/, "{}")}}`, id };
    case 5:
      return {
        line: JSON.stringify({ id, method: "server/diagnostics", params: { [random.pick(["x", "__proto__", "constructor", "\u2028"])]: random.int(9) } }),
        id,
      };
    case 6:
      return { line: JSON.stringify({ id, method: "server/diagnostics", params: random.pick([null, [], 5, "x", true]) }), id };
    case 7: {
      const numeric = random.pick([-1 - n, 1e300 * (n + 1), -1e-300 * (n + 1), n + 0.5, 9007199254740991 - n]);
      return { line: JSON.stringify({ id: numeric, method: "server/diagnostics", params: {} }), id: numeric };
    }
    case 8:
      return {
        line: JSON.stringify({ id, method: random.pick(["", "thread/start", "x".repeat(5000), "server/diagnostics/", "Initialize", "\u2028"]), params: {} }),
        id,
      };
    case 9:
      return { line: JSON.stringify({ id, method: "initialize", params: { clientInfo: { name: `a\u2028b${n}\u2029` } } }), id };
    case 10:
      return { line: JSON.stringify({ id: `s${random.int(10_000)}`, result: { anything: [1, 2, 3] } }) };
    case 11:
      return { line: JSON.stringify({ id: random.pick([7, "zz", -3]), error: { code: "internal", message: "nope" } }) };
    case 12:
      return { line: JSON.stringify({ method: random.pick(["initialized", "made/up", "exit", "$/cancel"]), params: random.pick([{}, [], null]) }) };
    case 13:
      return {
        line: JSON.stringify({ id: random.pick([{}, [], true, null, Number.POSITIVE_INFINITY]), method: "server/diagnostics", params: {} }).replace(
          "null",
          random.pick(["null", "1e400"]),
        ),
      };
    case 14:
      return { line: JSON.stringify({ id, method: "server/diagnostics", params: {}, extra: "\u2028".repeat(random.int(50)) }), id };
    default:
      return { line: JSON.stringify({ id, method: "server/diagnostics", params: {} }), id };
  }
}

test("fuzz: 12,000 random and malformed lines never crash the server and every well-formed request is answered once", async () => {
  const seed = seedFromEnv("FUZZ_SEED", 20261130);
  const random = new Random(seed);
  const server = await startServer();
  const expected: RequestId[] = [];
  try {
    const stdin = server.transport.child.stdin!;
    for (let n = 0; n < LINES; n++) {
      const { line, id } = makeLine(random, n);
      if (id !== undefined) expected.push(id);
      const ok = stdin.write(Buffer.concat([typeof line === "string" ? Buffer.from(line) : line.filter((b) => b !== 0x0a), Buffer.from("\n")]));
      if (!ok) await new Promise((resolve) => stdin.once("drain", resolve));
    }
    await waitUntil("answers to every well-formed request", () => expected.every((id) => server.main.responseCounts.has(id)) || undefined, 60_000);
    const started = Date.now();
    const final = await server.main.request("server/diagnostics", {});
    const elapsed = Date.now() - started;
    assert.ok(final.uptimeMs > 0);
    assert.ok(elapsed < 1000, `final diagnostics took ${elapsed} ms`);
    const twice = expected.filter((id) => server.main.responseCounts.get(id) !== 1);
    assert.deepEqual(twice.slice(0, 10), [], `each well-formed request answered exactly once (${twice.length} were not)`);
    assert.ok(server.main.notificationsOf("error").length > LINES / 4, "malformed lines were reported");
    assert.equal(server.transport.child.exitCode, null, "still running");
    const exit = await server.close();
    assert.equal(exit.code, 0);
  } catch (error) {
    server.cleanup();
    throw new Error(`fuzz failed with FUZZ_SEED=${seed}: ${(error as Error).message}\nstderr tail:\n${server.stderr.slice(-2000)}`);
  }
});
