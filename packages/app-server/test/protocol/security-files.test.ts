import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, test } from "node:test";
import { AppServerError, type ResolvedItem } from "@knightcode/app-server-client";
import { ScriptedModelServer, type RecordedRequest } from "@knightcode/testkit";
import { startServer, waitUntil, type TestServer } from "../support/harness.js";

/*
 * Attacks on files and secrets, each played as the attacker would: a
 * prompt-injected model calling real tools on real files, or another local
 * user writing where the server reads. Every test here failed before its fix.
 */

const IS_ROOT = process.getuid?.() === 0;
/** A user id nobody here is: the "other local user" of the attacks. */
const OTHER_UID = 12345;
const ROOT_ONLY = IS_ROOT ? false : "needs root to give files to another user (chown)";

/** A model server per test: a test that fails midway leaves no queued reply for the next. */
let model: ScriptedModelServer;
beforeEach(async () => {
  model = await ScriptedModelServer.start();
});
afterEach(async () => {
  await model.close();
});

type ToolCall = { id: string; name: string; arguments: unknown };

/** The read-only search tools are not among a thread's default tools: the settings add them. */
const SEARCH_TOOLS = ["+grep", "+find", "+ls"];

let callCount = 0;
function call(name: string, args: unknown): ToolCall {
  return { id: `call_${++callCount}_${randomBytes(3).toString("hex")}`, name, arguments: args };
}

type CompletedItem = ResolvedItem;

/** One turn in which the model makes `calls` (all at once), then answers; resolves with the completed items. */
async function toolTurn(server: TestServer, threadId: string, calls: ToolCall[]): Promise<CompletedItem[]> {
  model.enqueue({ toolCalls: calls }, { text: "done" });
  const mark = server.main.notifications.length;
  const answer = await server.main.request("turn/start", { threadId, text: "go" });
  assert.equal(answer.status, "started");
  const { turn } = await server.main.waitForNotification("turn/started", (p) => p.threadId === threadId, { since: mark });
  await server.main.waitForNotification("turn/completed", (p) => p.turn.id === turn.id, { since: mark, timeoutMs: 30_000 });
  const wire = server.main.notificationsOf("item/completed").filter((p) => p.turnId === turn.id);
  // A large output comes as a reference: read it, as a client would.
  return Promise.all(wire.map((p) => server.main.client.resolveItem(p.item)));
}

function outputOf(items: CompletedItem[], callId: string): string {
  const item = items.find((i) => i.id === callId);
  assert.ok(item && item.type === "toolCall", `no toolCall item ${callId} in ${JSON.stringify(items).slice(0, 2000)}`);
  return `${item.status}: ${item.output ?? ""}`;
}

// ---------------------------------------------------------------------------
// 6. The extension compile cache

/** What jiti names a file's cached code, and the line that vouches for the source it was made from. */
function jitiCacheEntry(filename: string, source: string): { name: string; trailer: string } {
  const md5 = (text: string) => createHash("md5").update(text).digest("hex");
  const parent = filename.split("/").at(-2)!;
  const base = filename
    .split("/")
    .at(-1)!
    .replace(/\.[^.]*$/, "");
  return { name: `${parent}-${base}.${md5(filename).slice(0, 8)}.mjs`, trailer: ` /* v9-${md5(source).slice(0, 16)} */\n` };
}

/** The real extension: it leaves its own mark when a thread loads it. */
function cleanSource(mark: string): string {
  return `import { writeFileSync } from "node:fs";\nexport default function () { writeFileSync(${JSON.stringify(mark)}, "the real extension ran"); }\n`;
}

/** Compiled code that announces itself with a mark of its own. */
function poisonCode(mark: string): string {
  return (
    `"use strict";Object.defineProperty(exports, "__esModule", { value: true });` +
    `exports.default = function () { require("node:fs").writeFileSync(${JSON.stringify(mark)}, "poisoned code ran"); };`
  );
}

interface CacheCase {
  home: string;
  agentDir: string;
  tmp: string;
  extension: string;
  /** Left by the real extension's code. */
  cleanMark: string;
  /** Left by the planted code. */
  poisonMark: string;
}

/** Plants poisoned cached code for the case's extension in `dir`, as jiti would find it. */
function plantPoison(dir: string, c: CacheCase): string {
  mkdirSync(dir, { recursive: true });
  const { name, trailer } = jitiCacheEntry(c.extension, cleanSource(c.cleanMark));
  const path = join(dir, name);
  writeFileSync(path, poisonCode(c.poisonMark) + trailer);
  return path;
}

/** Gives every file and folder under `root` (itself included) to `uid`. */
function chownTree(root: string, uid: number): void {
  chownSync(root, uid, uid);
  for (const name of readdirSync(root)) {
    const path = join(root, name);
    if (lstatSync(path).isDirectory()) chownTree(path, uid);
    else chownSync(path, uid, uid);
  }
}

/** A server whose one `-e` extension is the case's; a thread loads it. Asserts which code ran. */
async function loadExtension(c: CacheCase): Promise<TestServer> {
  rmSync(c.cleanMark, { force: true });
  const server = await startServer({ model, home: c.home, args: ["-e", c.extension], env: { TMPDIR: c.tmp } });
  try {
    const { warnings } = await server.main.request("thread/start", { cwd: server.project() });
    assert.deepEqual(
      warnings.filter((w) => w.source === "extension"),
      [],
      "the extension loads",
    );
    assert.ok(!existsSync(c.poisonMark), "the planted code ran inside the server");
    assert.ok(existsSync(c.cleanMark), "the real extension ran");
  } catch (error) {
    server.cleanup();
    throw error;
  }
  return server;
}

function cacheCase(): CacheCase {
  const base = join(process.env.TMPDIR ?? "/tmp", `kc-sec-cache-${randomBytes(4).toString("hex")}`);
  const home = join(base, "home");
  const agentDir = join(home, ".knightcode", "agent");
  mkdirSync(agentDir, { recursive: true });
  const extDir = join(home, "ext");
  mkdirSync(extDir);
  const extension = join(extDir, "hello.ts");
  const cleanMark = join(base, "clean-ran");
  writeFileSync(extension, cleanSource(cleanMark));
  const tmp = join(base, "tmp");
  mkdirSync(tmp);
  // Anyone may write in a temporary folder; so may the attacker here.
  chmodSync(tmp, 0o1777);
  return { home, agentDir, tmp, extension, cleanMark, poisonMark: join(base, "poison-ran") };
}

describe("security: the extension compile cache (item 6)", () => {
  test("code planted in the shared temporary folder's jiti/knightcode is never run", async (t) => {
    const c = cacheCase();
    t.after(() => rmSync(join(c.home, ".."), { recursive: true, force: true }));
    const shared = join(c.tmp, "jiti", "knightcode");
    plantPoison(shared, c);
    chmodSync(join(c.tmp, "jiti"), 0o777);
    chmodSync(shared, 0o777);
    if (IS_ROOT) chownTree(join(c.tmp, "jiti"), OTHER_UID);
    const server = await loadExtension(c);
    await server.close();
  });

  const spoilers: { name: string; skip: string | false; spoil: (cache: string, c: CacheCase) => void }[] = [
    { name: "owned by another user", skip: ROOT_ONLY, spoil: (cache) => chownTree(cache, OTHER_UID) },
    { name: "writable by everyone", skip: false, spoil: (cache) => chmodSync(cache, 0o777) },
    { name: "whose parent is writable by everyone", skip: false, spoil: (_cache, c) => chmodSync(join(c.agentDir, "cache"), 0o777) },
    {
      name: "that is a link to a folder everyone can write",
      skip: false,
      spoil: (cache, c) => {
        const elsewhere = join(c.tmp, "planted-cache");
        renameSync(cache, elsewhere);
        chmodSync(elsewhere, 0o777);
        symlinkSync(elsewhere, cache);
      },
    },
  ];
  for (const { name, skip, spoil } of spoilers) {
    test(`a cache folder under the agent folder ${name} is not used; a fresh private one replaces it, with a warning`, { skip }, async (t) => {
      const c = cacheCase();
      t.after(() => rmSync(join(c.home, ".."), { recursive: true, force: true }));
      const cache = join(c.agentDir, "cache", "jiti");
      plantPoison(cache, c);
      chmodSync(join(c.agentDir, "cache"), 0o700);
      chmodSync(cache, 0o700);
      spoil(cache, c);
      const server = await loadExtension(c);
      assert.match(server.stderr, /compile cache/);
      const fresh = lstatSync(cache);
      assert.ok(fresh.isDirectory() && fresh.uid === process.getuid?.() && (fresh.mode & 0o777) === 0o700, "a fresh private folder");
      await server.close();
    });
  }

  test("transformed code is kept in <agentDir>/cache/jiti, a folder only its owner can enter, which the next server finds sound", async (t) => {
    const c = cacheCase();
    t.after(() => rmSync(join(c.home, ".."), { recursive: true, force: true }));
    await (await loadExtension(c)).close();
    const cache = join(c.agentDir, "cache", "jiti");
    const info = statSync(cache);
    assert.equal(info.mode & 0o777, 0o700);
    assert.equal(info.uid, process.getuid?.());
    assert.equal(statSync(join(c.agentDir, "cache")).mode & 0o077, 0, "the cache root is private too");
    const { name } = jitiCacheEntry(c.extension, cleanSource(c.cleanMark));
    assert.ok(existsSync(join(cache, name)), `cached: ${readdirSync(cache).join(", ")}`);
    assert.ok(!existsSync(join(c.tmp, "jiti")), "nothing goes to the shared temporary folder");
    const second = await loadExtension(c);
    assert.doesNotMatch(second.stderr, /compile cache/, "a sound cache gives no warning");
    await second.close();
  });
});

// ---------------------------------------------------------------------------
// 7. Secrets the model must not read

const SECRET_OPENAI = `sk-openai-${randomBytes(12).toString("hex")}`;
const SECRET_CUSTOM = `sk-custom-${randomBytes(12).toString("hex")}`;
const SECRET_AUTH = `sk-auth-${randomBytes(12).toString("hex")}`;
const TOKEN = randomBytes(24).toString("hex");
const SECRETS = { SECRET_OPENAI, SECRET_CUSTOM, SECRET_AUTH, TOKEN };

function assertNoSecret(where: string, text: string): void {
  for (const [name, secret] of Object.entries(SECRETS)) assert.ok(!text.includes(secret), `${name} reached ${where}`);
}

/** Everything the model provider was sent (request bodies; the provider's own key travels in a header, as it must). */
function sentToModel(requests: readonly RecordedRequest[]): string {
  return requests.map((r) => JSON.stringify(r.body)).join("\n");
}

interface SecretServer {
  server: TestServer;
  home: string;
  tokenFile: string;
}

/** A server holding every kind of secret: provider keys in its environment and files, its WebSocket token in a file and in its environment. */
async function secretServer(settings?: unknown): Promise<SecretServer> {
  const home = join(process.env.TMPDIR ?? "/tmp", `kc-sec-keys-${randomBytes(4).toString("hex")}`);
  const agentDir = join(home, ".knightcode", "agent");
  mkdirSync(agentDir, { recursive: true });
  const modelsJson = model.modelsJson() as { providers: Record<string, { apiKey: string }> };
  // The registry reads this provider's key from the variable models.json names.
  modelsJson.providers.scripted!.apiKey = "KC_CUSTOM_PROVIDER_KEY";
  writeFileSync(join(agentDir, "models.json"), JSON.stringify(modelsJson));
  writeFileSync(join(agentDir, "auth.json"), JSON.stringify({ anthropic: { type: "api_key", key: SECRET_AUTH } }), { mode: 0o600 });
  // auth.json's key would make anthropic the default; the turns here talk to the scripted model.
  writeFileSync(
    join(agentDir, "settings.json"),
    JSON.stringify({ defaultProvider: "scripted", defaultModel: "scripted-model", defaultTools: SEARCH_TOOLS, ...(settings as object) }),
  );
  const tokenFile = join(home, "ws-token");
  writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  const server = await startServer({
    home,
    args: ["--listen", "ws://127.0.0.1:0", "--listen-token-file", tokenFile],
    env: {
      OPENAI_API_KEY: SECRET_OPENAI,
      KC_CUSTOM_PROVIDER_KEY: SECRET_CUSTOM,
      // A launcher that also exports the token, under its own name and another.
      KNIGHTCODE_APP_SERVER_TOKEN: TOKEN,
      DESKTOP_BRIDGE_SECRET: TOKEN,
      KC_HARMLESS: "plain-value",
    },
  });
  await server.waitForStderr(/listening on ws:/);
  return { server, home, tokenFile };
}

describe("security: secrets the model reads without asking (item 7)", () => {
  test("in ask mode, read, grep, find and ls return no key of auth.json or models.json, nothing of /proc/*/environ or cmdline, and not the token file", async (t) => {
    const { server, home, tokenFile } = await secretServer();
    t.after(() => {
      server.cleanup();
      rmSync(home, { recursive: true, force: true });
    });
    const agentDir = server.agentDir;
    const cwd = server.project();
    symlinkSync("/proc/self/environ", join(cwd, "environ-link"));
    symlinkSync(`/proc/${server.pid}`, join(cwd, "server-proc"));
    const firstRequest = model.requests.length;
    const { thread } = await server.main.request("thread/start", { cwd, approvalMode: "ask" });
    const refused = [
      call("read", { path: join(agentDir, "auth.json") }),
      call("read", { path: join(agentDir, "models.json") }),
      call("read", { path: "/proc/self/environ" }),
      call("read", { path: `/proc/${server.pid}/environ` }),
      call("read", { path: `/proc/${server.pid}/cmdline` }),
      call("read", { path: "/proc/thread-self/environ" }),
      call("read", { path: "environ-link" }),
      call("read", { path: "server-proc/environ" }),
      call("read", { path: `/proc/${server.pid}/task/${server.pid}/environ` }),
      call("read", { path: tokenFile }),
      call("grep", { pattern: "sk-|[0-9a-f]{32}", path: "/proc/self/environ" }),
      call("grep", { pattern: "sk-|[0-9a-f]{32}", path: `/proc/${server.pid}/environ` }),
      call("grep", { pattern: "sk-|[0-9a-f]{32}", path: tokenFile }),
      call("ls", { path: join(agentDir, "auth.json") }),
      call("ls", { path: "/proc/self/environ" }),
      call("find", { pattern: "*", path: `/proc/${server.pid}/environ` }),
    ];
    const searches = [
      call("grep", { pattern: "sk-", path: agentDir }),
      call("grep", { pattern: "sk-|[0-9a-f]{48}", path: home }),
      call("find", { pattern: "*.json", path: agentDir }),
      call("ls", { path: agentDir }),
    ];
    const items = await toolTurn(server, thread.id, [...refused, ...searches]);
    for (const c of refused) assert.match(outputOf(items, c.id), /^failed: .*(credential|environment|token)/s, `${c.name} ${JSON.stringify(c.arguments)}`);
    assert.match(outputOf(items, searches[2]!.id), /auth\.json/, "names still show");
    assertNoSecret("a notification", JSON.stringify(server.main.notifications));
    assertNoSecret("the model", sentToModel(model.requests.slice(firstRequest)));
    await server.close();
  });

  test("bash and an extension's exec do not inherit the token or provider keys; the model never sees them", async (t) => {
    const { server, home } = await secretServer();
    t.after(() => {
      server.cleanup();
      rmSync(home, { recursive: true, force: true });
    });
    const cwd = server.project({
      ".knightcode/extensions/env-dump.ts": `export default function (kc: any) {
        kc.registerTool({ name: "env_dump", description: "the environment an extension's exec gives", parameters: { type: "object", properties: {} },
          execute: async () => { const r = await kc.exec("env", []); return { content: [{ type: "text", text: r.stdout }], details: {} }; } });
      }`,
    });
    await server.main.request("project/trust/set", { cwd, trusted: true });
    const firstRequest = model.requests.length;
    const { thread } = await server.main.request("thread/start", { cwd, approvalMode: "fullAccess" });
    const env = call("bash", { command: 'env; echo "openai=[$OPENAI_API_KEY] token=[$KNIGHTCODE_APP_SERVER_TOKEN] custom=[$KC_CUSTOM_PROVIDER_KEY]"' });
    const own = call("bash", { command: "cat /proc/self/environ | tr '\\0' '\\n'" });
    const dump = call("env_dump", {});
    const items = await toolTurn(server, thread.id, [env, own, dump]);
    assert.match(outputOf(items, env.id), /^completed: .*KC_HARMLESS=plain-value.*openai=\[\] token=\[\] custom=\[\]/s);
    assert.match(outputOf(items, own.id), /KC_HARMLESS=plain-value/);
    assert.match(outputOf(items, dump.id), /^completed: .*KC_HARMLESS=plain-value/s);
    assertNoSecret("a notification", JSON.stringify(server.main.notifications));
    assertNoSecret("the model", sentToModel(model.requests.slice(firstRequest)));
    await server.close();
  });

  test("shellEnv.passThrough in the global settings passes a named variable on, and only that one", async (t) => {
    const { server, home } = await secretServer({ shellEnv: { passThrough: ["OPENAI_API_KEY"] } });
    t.after(() => {
      server.cleanup();
      rmSync(home, { recursive: true, force: true });
    });
    const { thread } = await server.main.request("thread/start", { cwd: server.project(), approvalMode: "fullAccess" });
    const echo = call("bash", { command: 'echo "openai=[$OPENAI_API_KEY] token=[$KNIGHTCODE_APP_SERVER_TOKEN] custom=[$KC_CUSTOM_PROVIDER_KEY]"' });
    const items = await toolTurn(server, thread.id, [echo]);
    assert.match(outputOf(items, echo.id), new RegExp(`openai=\\[${SECRET_OPENAI}\\] token=\\[\\] custom=\\[\\]`));
    await server.close();
  });
});

// ---------------------------------------------------------------------------
// 8. A FIFO named as an image

/** Settles with the request's error code, or fails after `ms`: a request that never answers is the bug. */
async function errorCodeWithin(promise: Promise<unknown>, ms: number, what: string): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  try {
    await Promise.race([promise, deadline]);
  } catch (error) {
    if (error instanceof AppServerError) return error.code;
    throw error;
  } finally {
    clearTimeout(timer);
  }
  throw new Error(`${what} succeeded`);
}

describe("security: special files named as paths (item 8)", () => {
  test("four turn/starts with a FIFO as image each answer invalidParams promptly; thread/list and another thread's turn go on", async (t) => {
    const server = await startServer({ model });
    t.after(() => server.cleanup());
    const cwd = server.project();
    const fifos = [0, 1, 2, 3].map((i) => join(cwd, `image-${i}.png`));
    for (const fifo of fifos) execFileSync("mkfifo", [fifo]);
    const { thread } = await server.main.request("thread/start", { cwd });
    const { thread: other } = await server.main.request("thread/start", { cwd: server.project() });
    const starts = fifos.map((path, i) =>
      errorCodeWithin(server.main.request("turn/start", { threadId: thread.id, text: `look ${i}`, images: [{ path }] }), 5000, `turn/start ${i}`),
    );
    const queued = errorCodeWithin(
      server.main.request("turn/queue/add", { threadId: thread.id, text: "later", images: [{ path: fifos[0]! }] }),
      5000,
      "turn/queue/add",
    );
    assert.deepEqual(await Promise.all([...starts, queued]), ["invalidParams", "invalidParams", "invalidParams", "invalidParams", "invalidParams"]);
    const listed = await server.main.request("thread/list", {});
    assert.ok(listed.threads.length >= 0);
    model.enqueue({ text: "still here" });
    const mark = server.main.notifications.length;
    assert.equal((await server.main.request("turn/start", { threadId: other.id, text: "hello" })).status, "started");
    const done = await server.main.waitForNotification("turn/completed", (p) => p.threadId === other.id, { since: mark });
    assert.equal(done.turn.status, "completed");
    // A regular image still works, and a device is refused like a FIFO.
    const devices = await errorCodeWithin(
      server.main.request("turn/start", { threadId: thread.id, text: "x", images: [{ path: "/dev/zero" }] }),
      5000,
      "turn/start /dev/zero",
    );
    assert.equal(devices, "invalidParams");
    await server.close();
  });

  test("read, grep, edit and write of a FIFO fail at once instead of waiting for a writer", async (t) => {
    const server = await startServer({ model });
    t.after(() => server.cleanup());
    writeFileSync(join(server.agentDir, "settings.json"), JSON.stringify({ defaultTools: SEARCH_TOOLS }));
    const cwd = server.project();
    execFileSync("mkfifo", [join(cwd, "pipe.txt")]);
    const { thread } = await server.main.request("thread/start", { cwd, approvalMode: "autoEdit" });
    const calls = [
      call("read", { path: "pipe.txt" }),
      call("grep", { pattern: "x", path: "pipe.txt" }),
      call("edit", { path: "pipe.txt", oldText: "a", newText: "b" }),
      call("write", { path: "pipe.txt", content: "b" }),
    ];
    const items = await toolTurn(server, thread.id, calls);
    for (const c of calls) assert.match(outputOf(items, c.id), /^failed: .*not a regular file/s, c.name);
    await server.close();
  });
});

// ---------------------------------------------------------------------------
// Smaller ones: the trust warning, the bash output spill file

describe("security: smaller items", () => {
  test("the trust warning names mcp.json and environments.json", async (t) => {
    const server = await startServer({ model });
    t.after(() => server.cleanup());
    const only = server.project({ ".knightcode/mcp.json": '{"mcpServers":{}}', ".knightcode/environments.json": "[]" });
    const started = await server.main.request("thread/start", { cwd: only });
    const trust = started.warnings.filter((w) => w.source === "trust");
    assert.equal(trust.length, 1, JSON.stringify(started.warnings));
    assert.match(trust[0]!.message, /mcp\.json/);
    assert.match(trust[0]!.message, /environments\.json/);
    const mixed = server.project({ ".knightcode/settings.json": "{}", ".knightcode/extensions/x.ts": "export default () => {}", ".knightcode/mcp.json": "{}" });
    const again = await server.main.request("thread/start", { cwd: mixed });
    assert.equal(again.warnings.find((w) => w.source === "trust")?.message, "project resources skipped until trusted: settings.json, extensions/, mcp.json");
    const { needsTrust } = await server.main.request("project/trust/read", { cwd: only });
    assert.equal(needsTrust, true);
    await server.close();
  });

  test("a bash output spill file is deleted when its thread unloads", async (t) => {
    const server = await startServer({ model, env: { KNIGHTCODE_THREAD_IDLE_MS: "200" } });
    t.after(() => server.cleanup());
    const { thread } = await server.main.request("thread/start", { cwd: server.project(), approvalMode: "fullAccess" });
    const big = call("bash", { command: "head -c 3000000 /dev/zero | tr '\\0' 'x' | fold -w 100" });
    const items = await toolTurn(server, thread.id, [big]);
    const spill = /the full output is in (\S+\.log)/.exec(outputOf(items, big.id))?.[1];
    assert.ok(spill, "the output was spilled to a file");
    assert.ok(statSync(spill).size > 3_000_000, "the whole output is in it");
    const mark = server.main.notifications.length;
    assert.equal((await server.main.request("thread/unsubscribe", { threadId: thread.id })).status, "unsubscribed");
    await server.main.waitForNotification("thread/status/changed", (p) => p.threadId === thread.id && p.status.type === "notLoaded", { since: mark });
    await waitUntil(`${spill} to be deleted`, () => !existsSync(spill));
    await server.close();
  });

  test("a bash output spill file is deleted when the server shuts down", async (t) => {
    const server = await startServer({ model });
    t.after(() => server.cleanup());
    const { thread } = await server.main.request("thread/start", { cwd: server.project(), approvalMode: "fullAccess" });
    const big = call("bash", { command: "head -c 1000000 /dev/zero | tr '\\0' 'y' | fold -w 100" });
    const spill = /the full output is in (\S+\.log)/.exec(outputOf(await toolTurn(server, thread.id, [big]), big.id))?.[1];
    assert.ok(spill && existsSync(spill));
    assert.equal((await server.close()).code, 0);
    assert.ok(!existsSync(spill), `${spill} outlived the server`);
  });
});
