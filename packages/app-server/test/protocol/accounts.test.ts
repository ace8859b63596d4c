import assert from "node:assert/strict";
import { readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { connect, createServer, type Server } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { FileLock } from "@knightcode/system/fs/file-lock";
import { ScriptedModelServer } from "@knightcode/testkit";
import { startServer, type TestClient, type TestServer } from "../support/harness.js";
import { startInProcess } from "../support/in-process.js";

// account/*: API keys stored in auth.json, pi-ai's OAuth logins (only as far
// as they go without a network: the URL, the local callback server, cancel,
// shutdown), and account/updated on every connection. No secret may come
// back in a result, a notification, a log line or a file the server writes.

const TOKEN = "accounts-test-token-0123456789abcdef";
const STORED_KEY = "sk-accounts-stored-9f3b7c1e2d";
const ENV_KEY = "sk-accounts-environment-4a8d2e6f0b";
/** pi-ai's Anthropic login listens here for the browser's redirect; the test only ever connects to it locally. */
const ANTHROPIC_CALLBACK_PORT = 53692;

let model: ScriptedModelServer;
let server: TestServer;
let ws: TestClient;
let cwd: string;

/** The server's environment without any provider key of the machine's, and with one of ours for openai. */
function providerEnv(): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {};
  for (const name of Object.keys(process.env)) if (/_API_KEY$|_TOKEN$|^AWS_|^GOOGLE_/.test(name)) env[name] = undefined;
  return { ...env, OPENAI_API_KEY: ENV_KEY };
}

/**
 * The scripted provider without a key of its own, so that only a stored one
 * can make it usable, and `keyed`, the same server with a key in models.json.
 */
function keylessModelsJson(): object {
  const file = model.modelsJson() as { providers: Record<string, Record<string, unknown>> };
  delete file.providers.scripted!.apiKey;
  const keyed = model.modelsJson({ provider: "keyed", models: [{ id: "keyed-model" }] }) as { providers: Record<string, Record<string, unknown>> };
  keyed.providers.keyed!.apiKey = "models-json-key";
  return { providers: { ...file.providers, ...keyed.providers } };
}

before(async () => {
  model = await ScriptedModelServer.start();
  server = await startServer({ modelsJson: keylessModelsJson(), env: providerEnv(), args: ["--listen", "ws://127.0.0.1:0", "--listen-token", TOKEN] });
  const url = (await server.waitForStderr(/listening on (ws:\S+)/))[1]!;
  ws = await server.connectWebSocket(url, TOKEN, "websocket");
  await ws.initialize();
  cwd = server.project({ "README.md": "# accounts\n" });
});
after(async () => {
  if (process.env.SHOW_STDERR) process.stderr.write(server.stderr);
  await server.close();
  await model.close();
});

function authPath(): string {
  return join(server.agentDir, "auth.json");
}

/** Resolves "open" when something accepts a connection on the port, else the refusal's code. */
function probePort(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve("open");
    });
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"));
  });
}

/** The next account/updated on both connections after the notification counts `since`, which must be equal. */
async function updatedOnBoth(
  since: { stdio: number; ws: number },
  match: (p: { accounts: { provider: string; kind: string }[]; login?: { loginId: string; outcome: string } }) => boolean,
) {
  const [onStdio, onWs] = await Promise.all([
    server.main.waitForNotification("account/updated", match, { since: since.stdio }),
    ws.waitForNotification("account/updated", match, { since: since.ws }),
  ]);
  assert.deepEqual(onWs, onStdio, "every connection is told the same");
  return onStdio;
}

const mark = () => ({ stdio: server.main.notifications.length, ws: ws.notifications.length });

async function modelAvailable(id: string): Promise<boolean> {
  const { models } = await server.main.request("model/list", {});
  return models.find((m) => m.provider === "scripted" && m.id === id)!.available;
}

/** Every file under a folder, but the one allowed to hold the key. */
function filesUnder(dir: string, except: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (path === except) continue;
    if (statSync(path).isDirectory()) out.push(...filesUnder(path, except));
    else out.push(path);
  }
  return out;
}

describe("spec: Settings, tools, MCP, resources, file search, accounts (account/*)", () => {
  test("account/read names a provider whose key is in the environment as env, and shows no key", async () => {
    const { accounts } = await server.main.request("account/read", {});
    assert.deepEqual(
      accounts.find((a) => a.provider === "openai"),
      { provider: "openai", kind: "env" },
    );
    assert.equal(
      accounts.find((a) => a.provider === "scripted"),
      undefined,
      "the scripted provider has no key yet",
    );
    assert.ok(!JSON.stringify(accounts).includes(ENV_KEY));
  });

  test("an API key is stored 0600 at once, told to both connections, and the same thread's next turn sends it", async () => {
    const { thread } = await server.main.request("thread/start", { cwd, model: { provider: "scripted", id: "scripted-model" } } as never);
    assert.equal(await modelAvailable("scripted-model"), false);
    const refused = await server.main.rawRequest("turn/start", { threadId: thread.id, text: "hello" });
    assert.equal(refused.error?.code, "authRequired", "without a key the turn cannot start");

    const since = mark();
    const result = await server.main.request("account/login/start", { provider: "scripted", apiKey: STORED_KEY });
    assert.deepEqual(result, { kind: "apiKey" });
    const updated = await updatedOnBoth(since, (p) => p.accounts.some((a) => a.provider === "scripted"));
    assert.deepEqual(
      updated.accounts.find((a) => a.provider === "scripted"),
      { provider: "scripted", kind: "apiKey" },
    );
    assert.equal(updated.login, undefined);
    assert.equal(statSync(authPath()).mode & 0o777, 0o600);
    assert.deepEqual(JSON.parse(readFileSync(authPath(), "utf8")), { scripted: { type: "api_key", key: STORED_KEY } });

    // No restart, no reload: the registry reads auth.json when it is asked.
    assert.equal(await modelAvailable("scripted-model"), true);
    const { accounts } = await ws.request("account/read", {});
    assert.deepEqual(
      accounts.find((a) => a.provider === "scripted"),
      { provider: "scripted", kind: "apiKey" },
    );

    model.enqueue({ text: "hello back" });
    const before = model.requests.length;
    const since2 = server.main.notifications.length;
    const started = await server.main.request("turn/start", { threadId: thread.id, text: "hello" });
    assert.equal(started.status, "started");
    const completed = await server.main.waitForNotification("turn/completed", (p) => p.threadId === thread.id, { since: since2, timeoutMs: 20_000 });
    assert.equal(completed.turn.status, "completed");
    const request = model.requests[before]!;
    assert.equal(request.headers.authorization, `Bearer ${STORED_KEY}`, "the stored key is the one sent");
  });

  test("a stored key wins over the key models.json gives its provider", async () => {
    const { thread } = await server.main.request("thread/start", { cwd, model: { provider: "keyed", id: "keyed-model" } } as never);
    const turn = async (text: string) => {
      model.enqueue({ text: "ok" });
      const before = model.requests.length;
      const since = server.main.notifications.length;
      await server.main.request("turn/start", { threadId: thread.id, text });
      await server.main.waitForNotification("turn/completed", (p) => p.threadId === thread.id, { since, timeoutMs: 20_000 });
      return model.requests[before]!.headers.authorization;
    };
    assert.equal(await turn("first"), "Bearer models-json-key");
    await server.main.request("account/login/start", { provider: "keyed", apiKey: STORED_KEY });
    assert.equal(await turn("second"), `Bearer ${STORED_KEY}`);
    assert.deepEqual(await server.main.request("account/logout", { provider: "keyed" }), { removed: true });
    assert.equal(await turn("third"), "Bearer models-json-key");
  });

  test("a stored key wins over the environment's, and logout leaves the environment's in effect", async () => {
    const since = mark();
    await server.main.request("account/login/start", { provider: "openai", apiKey: STORED_KEY });
    await updatedOnBoth(since, (p) => p.accounts.some((a) => a.provider === "openai" && a.kind === "apiKey"));
    const out = mark();
    assert.deepEqual(await server.main.request("account/logout", { provider: "openai" }), { removed: true });
    const updated = await updatedOnBoth(out, (p) => p.accounts.some((a) => a.provider === "openai" && a.kind === "env"));
    assert.equal(updated.accounts.filter((a) => a.provider === "openai").length, 1);
    assert.deepEqual(await server.main.request("account/logout", { provider: "openai" }), { removed: false }, "the environment's key is not ours to remove");
  });

  test("logout removes the stored key: the models are unusable again and the next turn asks for credentials", async () => {
    const since = mark();
    assert.deepEqual(await ws.request("account/logout", { provider: "scripted" }), { removed: true });
    const updated = await updatedOnBoth(since, (p) => !p.accounts.some((a) => a.provider === "scripted"));
    assert.ok(updated.accounts.some((a) => a.provider === "openai"));
    assert.deepEqual(JSON.parse(readFileSync(authPath(), "utf8")), {});
    assert.equal(await modelAvailable("scripted-model"), false);
    const { thread } = await server.main.request("thread/start", { cwd, model: { provider: "scripted", id: "scripted-model" } } as never);
    const refused = await server.main.rawRequest("turn/start", { threadId: thread.id, text: "again" });
    assert.equal(refused.error?.code, "authRequired");
    assert.deepEqual(await server.main.request("account/logout", { provider: "scripted" }), { removed: false });
  });

  test("bad keys and unknown providers are invalidParams, never quoted, and nothing is written", async () => {
    const before = readFileSync(authPath(), "utf8");
    const badKeys = ["sk-with space", "sk-with\nnewline", "sk-with\ttab", "sk-with\u0000nul", "sk-\u00e9", "", "k".repeat(4097)];
    for (const apiKey of badKeys) {
      const answer = await server.main.rawRequest("account/login/start", { provider: "scripted", apiKey });
      assert.equal(answer.error?.code, "invalidParams", JSON.stringify(apiKey));
      assert.match(answer.error!.message, /apiKey/);
      if (apiKey.length > 3) assert.ok(!answer.error!.message.includes(apiKey.slice(0, 8)), "the key is not quoted back");
    }
    const unknown = await server.main.rawRequest("account/login/start", { provider: "no-such-provider", apiKey: "sk-fine" });
    assert.equal(unknown.error?.code, "invalidParams");
    assert.match(unknown.error!.message, /unknown provider "no-such-provider"/);
    const noOAuth = await server.main.rawRequest("account/login/start", { provider: "openai" });
    assert.equal(noOAuth.error?.code, "invalidParams");
    assert.match(noOAuth.error!.message, /openai has no OAuth login/);
    const unknownOAuth = await server.main.rawRequest("account/login/start", { provider: "no-such-provider" });
    assert.equal(unknownOAuth.error?.code, "invalidParams");
    const unknownLogout = await server.main.rawRequest("account/logout", { provider: "no-such-provider" });
    assert.equal(unknownLogout.error?.code, "invalidParams");
    const extra = await server.main.rawRequest("account/read", { provider: "openai" });
    assert.equal(extra.error?.code, "invalidParams");
    assert.deepEqual(await server.main.request("account/login/cancel", { loginId: "no-such-login" }), { cancelled: false });
    assert.equal(readFileSync(authPath(), "utf8"), before);
  });

  test("a corrupt auth.json is refused, named but not quoted, and left byte for byte", async () => {
    // Unquoted, so that the parser's own message would quote the text around it.
    const corrupt = `{"scripted": {"type": "api_key", "key": sk-corrupt-secret-77}}`;
    writeFileSync(authPath(), corrupt, { mode: 0o600 });
    try {
      for (const [method, params] of [
        ["account/login/start", { provider: "scripted", apiKey: "sk-new-key" }],
        ["account/logout", { provider: "scripted" }],
        ["account/read", {}],
      ] as const) {
        const answer = await server.main.rawRequest(method, params);
        assert.equal(answer.error?.code, "internal", method);
        assert.ok(answer.error!.message.includes(authPath()), `${method} names the file`);
        assert.ok(!answer.error!.message.includes("sk-corrupt"), `${method} does not quote it`);
        assert.equal(readFileSync(authPath(), "utf8"), corrupt);
      }
    } finally {
      writeFileSync(authPath(), "{}\n", { mode: 0o600 });
    }
  });

  test("an OAuth login answers {loginId, url} from its local callback server; cancel closes it and saves nothing", async () => {
    const since = mark();
    const started = await server.main.request("account/login/start", { provider: "anthropic" });
    assert.equal(started.kind, "oauth");
    if (started.kind !== "oauth") return;
    assert.match(started.url, /^https:\/\/claude\.ai\/oauth\/authorize\?/);
    assert.match(started.url, new RegExp(`redirect_uri=${encodeURIComponent(`http://localhost:${ANTHROPIC_CALLBACK_PORT}/callback`)}`));
    assert.equal(started.instructions, undefined, "a callback-server login finishes in the browser; pi-ai's paste hint is not passed on");
    assert.equal(await probePort(ANTHROPIC_CALLBACK_PORT), "open");

    // A second login for the same provider replaces the first: one callback server per provider.
    const second = await ws.request("account/login/start", { provider: "anthropic" });
    assert.equal(second.kind, "oauth");
    if (second.kind !== "oauth") return;
    assert.notEqual(second.loginId, started.loginId);
    const replaced = await updatedOnBoth(since, (p) => p.login?.loginId === started.loginId);
    assert.equal(replaced.login!.outcome, "cancelled");
    assert.equal(await probePort(ANTHROPIC_CALLBACK_PORT), "open");

    assert.deepEqual(await server.main.request("account/login/cancel", { loginId: second.loginId }), { cancelled: true });
    assert.equal(await probePort(ANTHROPIC_CALLBACK_PORT), "ECONNREFUSED", "the callback server is closed when cancel answers");
    const ended = await updatedOnBoth(since, (p) => p.login?.loginId === second.loginId);
    assert.deepEqual(ended.login, { loginId: second.loginId, provider: "anthropic", outcome: "cancelled" });
    assert.ok(!ended.accounts.some((a) => a.provider === "anthropic"));
    assert.deepEqual(await server.main.request("account/login/cancel", { loginId: second.loginId }), { cancelled: false });
    assert.deepEqual(JSON.parse(readFileSync(authPath(), "utf8")), {}, "nothing saved");
  });

  test("an OAuth login whose callback port is taken fails at once with a clear internal error", async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(ANTHROPIC_CALLBACK_PORT, "127.0.0.1", resolve));
    try {
      const answer = await server.main.rawRequest("account/login/start", { provider: "anthropic" });
      assert.equal(answer.error?.code, "internal");
      assert.match(answer.error!.message, /callback port is in use/);
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });

  test("no secret is in any result, notification, log line or file the server wrote", async () => {
    const seen = [
      ...[...server.main.rawResponses.values(), ...ws.rawResponses.values()].map((r) => JSON.stringify(r)),
      ...[...server.main.notifications, ...ws.notifications].map((n) => JSON.stringify(n)),
      server.stderr,
      ...filesUnder(server.home, authPath()).map((path) => readFileSync(path, "latin1")),
    ];
    assert.ok(server.main.rawResponses.size > 10 && server.stderr.includes("account: stored an API key for scripted"), "the test looked at what it means to");
    for (const secret of [STORED_KEY, ENV_KEY]) {
      assert.equal(seen.filter((text) => text.includes(secret)).length, 0, `${secret} leaked`);
    }
    server.assertNoSchemaViolations();
  });
});

describe("spec: Settings, tools, MCP, resources, file search, accounts (two processes, one auth.json)", () => {
  test("two server processes storing and removing keys at once wait for the lock and lose no update", async () => {
    const names = Array.from({ length: 12 }, (_, i) => `race${i}`);
    const providers: Record<string, unknown> = {};
    for (const name of names) {
      const file = model.modelsJson({ provider: name, models: [{ id: `${name}-model` }] }) as { providers: Record<string, Record<string, unknown>> };
      delete file.providers[name]!.apiKey;
      Object.assign(providers, file.providers);
    }
    const one = await startServer({ modelsJson: { providers }, env: providerEnv() });
    const two = await startServer({ home: one.home, env: providerEnv() });
    const auth = join(one.agentDir, "auth.json");
    try {
      await one.main.request("account/login/start", { provider: "race1", apiKey: "sk-race-first-1" });
      // A third process (this test) holds the lock every writer of auth.json takes.
      const lock = FileLock.acquire(`${auth}.lock`, "test");
      let settled = 0;
      const calls = [
        ...names.map((provider, i) => (i % 2 === 0 ? one : two).main.request("account/login/start", { provider, apiKey: `sk-race-${provider}-key` })),
        two.main.request("account/logout", { provider: "race1" }),
      ].map((call) => call.finally(() => settled++));
      try {
        // Requests sent after the writes are answered while the writes still wait.
        await Promise.all([one.main.request("account/read", {}), two.main.request("account/read", {})]);
        assert.equal(settled, 0, "no write went ahead of the lock");
        assert.deepEqual(Object.keys(JSON.parse(readFileSync(auth, "utf8")) as object), ["race1"]);
      } finally {
        lock.release();
      }
      await Promise.all(calls);
      const stored = JSON.parse(readFileSync(auth, "utf8")) as Record<string, { type: string; key: string }>;
      // The logout and race1's login were sent by different processes: either order is right, and nothing else may be lost.
      for (const provider of names.filter((name) => name !== "race1"))
        assert.deepEqual(stored[provider], { type: "api_key", key: `sk-race-${provider}-key` }, provider);
      assert.ok(stored.race1 === undefined || stored.race1.key === "sk-race-race1-key", "race1 holds the last of its writes");
      const { accounts } = await one.main.request("account/read", {});
      const kinds = new Map(accounts.map((a) => [a.provider, a.kind]));
      for (const provider of names.filter((name) => name !== "race1")) assert.equal(kinds.get(provider), "apiKey", provider);
      assert.equal(statSync(auth).mode & 0o777, 0o600);
      assert.deepEqual(
        readdirSync(one.agentDir).filter((name) => name.startsWith("auth")),
        ["auth.json"],
        "no lock or temporary file left",
      );
      one.main.assertNoSchemaViolations();
      two.main.assertNoSchemaViolations();
    } finally {
      await two.close();
      await one.close();
    }
  });
});

describe("spec: Ownership, unloading, and shutdown (pending logins cancel)", () => {
  test("shutdown cancels a pending login: the server exits promptly and says so", async () => {
    const own = await startServer({ env: providerEnv() });
    try {
      const started = await own.main.request("account/login/start", { provider: "anthropic" });
      assert.equal(started.kind, "oauth");
      const begun = Date.now();
      own.transport.close();
      await own.waitForExit(5000);
      assert.ok(Date.now() - begun < 5000);
      assert.match(own.stderr, /account: login \S+ \(anthropic\) cancelled/);
      own.assertNoSchemaViolations();
    } finally {
      own.cleanup();
    }
  });

  test("a host's shutdown closes a pending login's callback server while the process lives on", async () => {
    const host = await startInProcess(model);
    const started = await host.client.request("account/login/start", { provider: "anthropic" });
    assert.equal(started.kind, "oauth");
    assert.equal(await probePort(ANTHROPIC_CALLBACK_PORT), "open");
    await host.close();
    assert.equal(await probePort(ANTHROPIC_CALLBACK_PORT), "ECONNREFUSED");
  });
});
