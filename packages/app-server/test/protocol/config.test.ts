import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ScriptedModelServer } from "@knightcode/testkit";
import { refused, settingsEntries, fileTree, sha256 } from "../support/config-files.js";
import { type TestServer, startServer } from "../support/harness.js";

// config/read and config/write over the protocol: one read of each scope,
// versions of raw bytes, conflicts, refusals that touch nothing, the lock
// shared by two processes, and a write seen by the next thread.

let model: ScriptedModelServer;
let server: TestServer;

before(async () => {
  model = await ScriptedModelServer.start();
  server = await startServer({ model });
});
after(async () => {
  await server.close();
  await model.close();
});

const globalFile = () => join(server.agentDir, "settings.json");
const projectFile = (cwd: string) => join(cwd, ".knightcode", "settings.json");
const readJson = (path: string): unknown => JSON.parse(readFileSync(path, "utf8"));

function put(path: string, text: string): string {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
  return sha256(text);
}

async function trusted(files: Record<string, string> = {}): Promise<string> {
  const cwd = server.project(files);
  await server.main.request("project/trust/set", { cwd, trusted: true });
  return cwd;
}

describe("spec: config/read", () => {
  test("without cwd only the global file is read; a missing file is version none, and defaults show unset keys", async () => {
    const fresh = await startServer();
    try {
      const read = await fresh.main.request("config/read", {});
      assert.deepEqual(read.settings, {});
      assert.deepEqual(read.origins, {});
      assert.deepEqual(read.versions, { global: "none" });
      assert.deepEqual(read.paths, { global: join(fresh.agentDir, "settings.json") });
      assert.deepEqual(read.errors, []);
      const defaults = read.defaults as { theme: string; defaultApprovalMode: string; retry: { provider: { maxRetries: number } } };
      assert.equal(defaults.theme, "dark");
      assert.equal(defaults.defaultApprovalMode, "ask");
      assert.equal(defaults.retry.provider.maxRetries, 3);
      fresh.main.assertNoSchemaViolations();
    } finally {
      await fresh.close();
    }
  });

  test("a trusted project merges over global key by key with per-leaf origins; an untrusted one is named but not read", async () => {
    const globalVersion = put(globalFile(), JSON.stringify({ theme: "light", retry: { provider: { maxRetries: 1, baseDelayMs: 5 } } }));
    const cwd = server.project({ ".knightcode/settings.json": JSON.stringify({ retry: { provider: { maxRetries: 9 } }, myExt: { on: true } }) });
    const projectVersion = sha256(readFileSync(projectFile(cwd)));

    const unread = await server.main.request("config/read", { cwd });
    assert.deepEqual(unread.versions, { global: globalVersion, project: "none" });
    assert.deepEqual(unread.paths, { global: globalFile(), project: projectFile(cwd) });
    assert.deepEqual(unread.settings, { theme: "light", retry: { provider: { maxRetries: 1, baseDelayMs: 5 } } });

    await server.main.request("project/trust/set", { cwd, trusted: true });
    const read = await server.main.request("config/read", { cwd });
    assert.deepEqual(read.versions, { global: globalVersion, project: projectVersion });
    assert.deepEqual(read.settings, { theme: "light", retry: { provider: { maxRetries: 9, baseDelayMs: 5 } }, myExt: { on: true } });
    assert.deepEqual(read.origins, {
      theme: "global",
      "retry.provider.maxRetries": "project",
      "retry.provider.baseDelayMs": "global",
      "myExt.on": "project",
    });
    assert.deepEqual(read.errors, []);
    server.main.assertNoSchemaViolations();
  });

  test("a file that does not parse is a settings warning with line and column; its version hashes the broken bytes; the other scope still reads", async () => {
    put(globalFile(), JSON.stringify({ theme: "light" }));
    const cwd = await trusted({ ".knightcode/settings.json": '{\n  "theme": "x",\n  "retry": \n}\n' });
    const read = await server.main.request("config/read", { cwd });
    assert.equal(read.versions.project, sha256(readFileSync(projectFile(cwd))));
    assert.deepEqual(read.settings, { theme: "light" });
    assert.equal(read.errors.length, 1);
    const [warning] = read.errors;
    assert.equal(warning!.source, "settings");
    assert.equal(warning!.path, projectFile(cwd));
    assert.equal(warning!.line, 4);
    assert.equal(typeof warning!.column, "number");
    server.main.assertNoSchemaViolations();
  });

  test("a known setting of the wrong type is a warning naming the key; the raw value stays in settings", async () => {
    put(globalFile(), JSON.stringify({ retry: { provider: { maxRetries: "many" } } }));
    const read = await server.main.request("config/read", {});
    assert.deepEqual(read.settings, { retry: { provider: { maxRetries: "many" } } });
    assert.equal(read.errors.length, 1);
    assert.match(read.errors[0]!.message, /retry\.provider\.maxRetries/);
    assert.equal(read.errors[0]!.source, "settings");
  });

  test("a cwd that is not an existing directory is invalidParams", async () => {
    const cwd = server.project({ "file.txt": "x" });
    for (const bad of [join(cwd, "missing"), "relative/dir", join(cwd, "file.txt")]) {
      await refused(server.main, "config/read", { cwd: bad }, "invalidParams", /cwd/);
    }
    await refused(server.main, "config/read", { cwd: cwd, extra: 1 }, "invalidParams");
    server.main.assertNoSchemaViolations();
  });
});

describe("spec: config/write", () => {
  test("answers the version of the bytes it wrote; expectedVersion guards against a changed or existing file", async () => {
    const fresh = await startServer();
    try {
      const file = join(fresh.agentDir, "settings.json");
      const first = await fresh.main.request("config/write", { scope: "global", key: "retry.provider.maxRetryDelayMs", value: 5000, expectedVersion: "none" });
      assert.equal(first.version, sha256(readFileSync(file)));
      assert.deepEqual(readJson(file), { retry: { provider: { maxRetryDelayMs: 5000 } } });
      assert.equal((await fresh.main.request("config/read", {})).versions.global, first.version);

      // "none" means the file must not exist.
      const exists = await refused(fresh.main, "config/write", { scope: "global", key: "theme", value: "light", expectedVersion: "none" }, "configConflict");
      assert.deepEqual(exists.data, { version: first.version });

      const second = await fresh.main.request("config/write", { scope: "global", key: "theme", value: "light", expectedVersion: first.version });
      const stale = await refused(
        fresh.main,
        "config/write",
        { scope: "global", key: "theme", value: "dark", expectedVersion: first.version },
        "configConflict",
      );
      assert.deepEqual(stale.data, { version: second.version });
      assert.deepEqual(readJson(file), { retry: { provider: { maxRetryDelayMs: 5000 } }, theme: "light" });

      // Unknown well-formed keys are stored as written; null deletes and prunes what it emptied.
      await fresh.main.request("config/write", { scope: "global", key: "my-ext.colors", value: { accent: "#fff", list: [1, 2] } });
      const deleted = await fresh.main.request("config/write", { scope: "global", key: "retry.provider.maxRetryDelayMs", value: null });
      assert.deepEqual(readJson(file), { theme: "light", "my-ext": { colors: { accent: "#fff", list: [1, 2] } } });
      assert.equal(deleted.version, sha256(readFileSync(file)));
      fresh.main.assertNoSchemaViolations();
    } finally {
      await fresh.close();
    }
  });

  test("project writes go to a trusted project's file; the global file is untouched", async () => {
    put(globalFile(), "{}\n");
    const cwd = await trusted();
    const { version } = await server.main.request("config/write", { scope: "project", cwd, key: "theme", value: "solarized", expectedVersion: "none" });
    assert.deepEqual(readJson(projectFile(cwd)), { theme: "solarized" });
    assert.equal(version, sha256(readFileSync(projectFile(cwd))));
    assert.equal(readFileSync(globalFile(), "utf8"), "{}\n");
    const read = await server.main.request("config/read", { cwd });
    assert.equal(read.origins.theme, "project");
    assert.equal(read.versions.project, version);
  });

  test("every refused write is invalidParams naming the key, and leaves every file byte for byte, creating none", async () => {
    put(globalFile(), JSON.stringify({ theme: "light", myExt: "on" }, null, 2));
    const bare = await trusted();
    const untrusted = server.project({ ".knightcode/settings.json": '{"theme": "x"}' });
    const undecided = server.project();
    await server.main.request("project/trust/set", { cwd: untrusted, trusted: false });
    const before = { agent: fileTree(server.agentDir, settingsEntries), bare: fileTree(bare), untrusted: fileTree(untrusted), undecided: fileTree(undecided) };

    const byKey: [Record<string, unknown>, RegExp][] = [
      [{ scope: "global", key: "retry.provider.maxRetries", value: "three" }, /retry\.provider\.maxRetries/],
      [{ scope: "global", key: "defaultApprovalMode", value: "sometimes" }, /defaultApprovalMode/],
      [{ scope: "global", key: "retry", value: 5 }, /retry/],
      [{ scope: "global", key: "theme.name", value: "x" }, /theme\.name/],
      [{ scope: "global", key: "", value: "x" }, /""/],
      [{ scope: "global", key: "a..b", value: 1 }, /a\.\.b/],
      [{ scope: "global", key: "a.", value: 1 }, /"a\."/],
      [{ scope: "global", key: "__proto__.polluted", value: true }, /__proto__/],
      [{ scope: "global", key: "x.constructor.prototype", value: true }, /x\.constructor\.prototype/],
      [{ scope: "global", key: "a.prototype", value: 1 }, /a\.prototype/],
      [{ scope: "global", key: "myExt.color", value: "red" }, /myExt\.color/],
      [{ scope: "global", key: "approvalMode", value: "ask" }, /approvalMode.*defaultApprovalMode/],
      [{ scope: "global", key: "theme" }, /"theme".*value is missing/],
      [{ scope: "user", key: "theme", value: "x" }, /"theme".*scope/],
      [{ scope: "project", key: "theme", value: "x" }, /theme|cwd/],
      [{ scope: "project", cwd: "relative/dir", key: "theme", value: "x" }, /theme/],
    ];
    for (const [params, message] of byKey) {
      const error = await refused(server.main, "config/write", params, "invalidParams", message);
      if (params.scope === "project") assert.equal(error.data?.reason, "missingCwd");
    }
    // An object value holding a prototype name, sent as raw JSON text.
    const raw = await server.main.rawRequest("config/write", JSON.parse('{"scope":"global","key":"myExt2","value":{"__proto__":{"polluted":true}}}'));
    assert.equal(raw.error?.code, "invalidParams");

    for (const cwd of [untrusted, undecided]) {
      const error = await refused(server.main, "config/write", { scope: "project", cwd, key: "theme", value: "y" }, "invalidParams", /trust/);
      assert.equal(error.data?.reason, "untrusted");
    }
    const conflict = await refused(
      server.main,
      "config/write",
      { scope: "project", cwd: bare, key: "theme", value: "y", expectedVersion: "0".repeat(64) },
      "configConflict",
    );
    assert.deepEqual(conflict.data, { version: "none" });
    // Deleting what is not there changes nothing, and creates nothing either.
    assert.deepEqual(await server.main.request("config/write", { scope: "project", cwd: bare, key: "theme", value: null }), { version: "none" });

    assert.deepEqual(fileTree(server.agentDir, settingsEntries), before.agent);
    assert.deepEqual(fileTree(bare), before.bare);
    assert.equal(existsSync(join(bare, ".knightcode")), false);
    assert.deepEqual(fileTree(untrusted), before.untrusted);
    assert.deepEqual(fileTree(undecided), before.undecided);
    server.main.assertNoSchemaViolations();
  });

  test("a settings file that is not valid JSON is refused with internal and never overwritten", async () => {
    const broken = '{ "theme": "light", \n';
    put(globalFile(), broken);
    const error = await refused(server.main, "config/write", { scope: "global", key: "theme", value: "dark" }, "internal", /not a valid settings file/);
    assert.equal(error.data?.path, globalFile());
    const notObject = await trusted({ ".knightcode/settings.json": "[1, 2]\n" });
    await refused(server.main, "config/write", { scope: "project", cwd: notObject, key: "theme", value: "dark" }, "internal");
    assert.equal(readFileSync(globalFile(), "utf8"), broken);
    assert.equal(readFileSync(projectFile(notObject), "utf8"), "[1, 2]\n");
    assert.deepEqual(
      [...fileTree(server.agentDir, settingsEntries).keys()].filter((name) => name.startsWith("settings")),
      ["settings.json"],
    );
    server.main.assertNoSchemaViolations();
  });

  test("migrations run before the edit: deleting the current key does not bring back its old name's value", async () => {
    put(globalFile(), JSON.stringify({ approvalMode: "autoEdit", theme: "light" }));
    const before = await server.main.request("config/read", {});
    assert.equal((before.settings as { defaultApprovalMode?: string }).defaultApprovalMode, "autoEdit");
    await server.main.request("config/write", { scope: "global", key: "defaultApprovalMode", value: null });
    assert.deepEqual(readJson(globalFile()), { theme: "light" });
    const after = await server.main.request("config/read", {});
    assert.deepEqual(after.settings, { theme: "light" });
  });

  test("a write takes effect for the next thread without a restart: approval mode and tools", async () => {
    put(globalFile(), "{}\n");
    const cwd = await trusted();
    const first = await server.main.request("thread/start", { cwd });
    assert.equal(first.thread.approvalMode, "ask");

    await server.main.request("config/write", { scope: "global", key: "defaultApprovalMode", value: "autoEdit" });
    assert.equal((await server.main.request("thread/start", { cwd })).thread.approvalMode, "autoEdit");
    await server.main.request("config/write", { scope: "project", cwd, key: "defaultApprovalMode", value: "fullAccess" });
    assert.equal((await server.main.request("thread/start", { cwd })).thread.approvalMode, "fullAccess");
    await server.main.request("config/write", { scope: "project", cwd, key: "defaultApprovalMode", value: null });

    const toolsOffered = async (): Promise<string[]> => {
      const { thread } = await server.main.request("thread/start", { cwd });
      const mark = model.requests.length;
      model.enqueue({ text: "ok" });
      await server.main.request("turn/start", { threadId: thread.id, text: "hi" });
      await server.main.waitForNotification("turn/completed", (p) => p.threadId === thread.id, { timeoutMs: 20_000 });
      return ((model.requests[mark]!.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);
    };
    const before = await toolsOffered();
    assert.ok(before.includes("bash") && before.includes("read"), before.join(","));
    await server.main.request("config/write", { scope: "global", key: "defaultTools", value: ["read"] });
    const narrowed = await toolsOffered();
    assert.ok(narrowed.includes("read"), narrowed.join(","));
    assert.ok(!narrowed.includes("bash") && !narrowed.includes("edit") && !narrowed.includes("write"), narrowed.join(","));
    await server.main.request("config/write", { scope: "global", key: "defaultTools", value: null });
    assert.ok((await toolsOffered()).includes("bash"));
    server.main.assertNoSchemaViolations();
  });

  test("two server processes writing one settings file at once lose no update", async () => {
    const one = await startServer();
    const two = await startServer({ home: one.home });
    try {
      const count = 25;
      const writes = (client: TestServer, prefix: string) =>
        Array.from({ length: count }, (_, i) => client.main.request("config/write", { scope: "global", key: `race.${prefix}${i}`, value: i }));
      const versions = await Promise.all([...writes(one, "a"), ...writes(two, "b")]);
      assert.equal(new Set(versions.map((v) => v.version)).size, 2 * count, "every write produced a file of its own");
      const read = await two.main.request("config/read", {});
      const race = (read.settings as { race: Record<string, number> }).race;
      for (let i = 0; i < count; i++) {
        assert.equal(race[`a${i}`], i, `a${i}`);
        assert.equal(race[`b${i}`], i, `b${i}`);
      }
      assert.equal(Object.keys(race).length, 2 * count);
      assert.deepEqual(
        [...fileTree(one.agentDir, settingsEntries).keys()].filter((name) => name.startsWith("settings") || name.startsWith(".settings")),
        ["settings.json"],
      );
      one.main.assertNoSchemaViolations();
      two.main.assertNoSchemaViolations();
    } finally {
      await two.close();
      await one.close();
    }
  });
});
