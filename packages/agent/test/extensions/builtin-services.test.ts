import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { runEnv, type RunEnv } from "../support/env.js";
import { testHost } from "../support/host.js";

let env: RunEnv;
before(async () => {
  env = await runEnv();
});
after(() => env.close());

function makeHost(turnSignal: () => AbortSignal | undefined = () => undefined) {
  return testHost(env, { threadId: "builtin-services", turnSignal, childEnv: () => ({ ONLY: "this" }) });
}

describe("built-in extensions' services", () => {
  test("a built-in gets warn and the thread's child environment; a user extension's factory gets the API alone", async () => {
    const { host, warnings } = makeHost();
    let seen: unknown[] = [];
    await host.load([
      {
        path: "inside",
        builtin: true,
        factory: (_api, services) => {
          services.warn({ message: "from a built-in", source: "extension", path: "inside" });
          seen.push(services.childEnv());
        },
      },
      { path: "outside", factory: (...args: unknown[]) => void (seen = [...seen, args.length]) },
    ]);
    assert.deepEqual(warnings, [{ message: "from a built-in", source: "extension", path: "inside" }]);
    assert.deepEqual(seen, [{ ONLY: "this" }, 1]);
  });

  test("a disposer runs after session_shutdown, even when an interrupt cut the handlers short, and once", async () => {
    const stopped = new AbortController();
    stopped.abort();
    const { host } = makeHost(() => stopped.signal);
    const order: string[] = [];
    await host.load([
      {
        path: "inside",
        builtin: true,
        factory: (api, services) => {
          api.on("session_shutdown", () => new Promise<void>(() => order.push("shutdown handler")));
          services.onDispose(async () => {
            order.push("disposed");
          });
        },
      },
    ]);
    await host.dispose("unload");
    await host.dispose("unload");
    assert.deepEqual(order, ["shutdown handler", "disposed"]);
  });

  test("a built-in that fails to load is released at once", async () => {
    const { host } = makeHost();
    let released = false;
    const warnings = await host.load([
      {
        path: "broken",
        builtin: true,
        factory: (_api, services) => {
          services.onDispose(() => void (released = true));
          throw new Error("cannot start");
        },
      },
    ]);
    assert.equal(released, true);
    assert.match(warnings[0]!.message, /cannot start/);
  });
});
