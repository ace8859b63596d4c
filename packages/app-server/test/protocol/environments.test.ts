import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { FileLock } from "@knightcode/system/fs/file-lock";
import { fileTree, refused } from "../support/config-files.js";
import { startServer, type TestServer } from "../support/harness.js";

// environment/list and environment/save: the project's
// .knightcode/environments.json, its rules, trust, and a save that is
// refused leaving the file as it was.

let server: TestServer;

before(async () => {
  server = await startServer();
});
after(async () => {
  await server.close();
});

const fileOf = (cwd: string) => join(cwd, ".knightcode", "environments.json");

const node = { name: "node", setup: { default: 'cd "$KNIGHTCODE_WORKTREE_PATH" && npm ci' } };
const python = {
  name: "python venv",
  setup: { default: "python3 -m venv .venv", win32: "py -m venv .venv" },
  cleanup: { default: "rm -rf .venv", darwin: "rm -rf .venv && echo done" },
};

async function trustedProject(files: Record<string, string> = {}): Promise<string> {
  const cwd = server.project(files);
  await server.main.request("project/trust/set", { cwd, trusted: true });
  return cwd;
}

describe("spec: environment/list", () => {
  test("a project without the file lists no environments, with its trust decision", async () => {
    const cwd = server.project();
    assert.deepEqual(await server.main.request("environment/list", { cwd }), { environments: [], trusted: null });
    await server.main.request("project/trust/set", { cwd, trusted: false });
    assert.deepEqual(await server.main.request("environment/list", { cwd }), { environments: [], trusted: false });
    await server.main.request("project/trust/set", { cwd, trusted: true });
    assert.deepEqual(await server.main.request("environment/list", { cwd }), { environments: [], trusted: true });
    assert.equal(existsSync(join(cwd, ".knightcode")), false, "listing creates nothing");
    server.main.assertNoSchemaViolations();
  });

  test("an untrusted project still lists its file, with trusted false", async () => {
    const cwd = server.project({ ".knightcode/environments.json": JSON.stringify({ environments: [node] }) });
    await server.main.request("project/trust/set", { cwd, trusted: false });
    assert.deepEqual(await server.main.request("environment/list", { cwd }), { environments: [node], trusted: false });
  });

  test("a file that is not JSON or breaks the rules is internal, naming the file", async () => {
    const cases = [
      "{ not json",
      "[]",
      JSON.stringify({ environments: [node, node] }),
      JSON.stringify({ environments: [{ name: "x" }] }),
      JSON.stringify({ envs: [] }),
    ];
    for (const text of cases) {
      const cwd = server.project({ ".knightcode/environments.json": text });
      const error = await refused(server.main, "environment/list", { cwd }, "internal");
      assert.ok(error.message.includes(fileOf(cwd)), error.message);
      assert.equal(error.data?.path, fileOf(cwd));
    }
    server.main.assertNoSchemaViolations();
  });

  test("a cwd that is not an existing directory is invalidParams", async () => {
    const cwd = server.project({ "a.txt": "x" });
    for (const bad of [join(cwd, "missing"), "relative", join(cwd, "a.txt")]) {
      await refused(server.main, "environment/list", { cwd: bad }, "invalidParams", /cwd/);
      await refused(server.main, "environment/save", { cwd: bad, environments: [] }, "invalidParams", /cwd/);
    }
  });
});

describe("spec: environment/save", () => {
  test("replaces the whole list of a trusted project as {environments: [...]}", async () => {
    const cwd = await trustedProject();
    assert.deepEqual(await server.main.request("environment/save", { cwd, environments: [node, python] }), {});
    assert.equal(readFileSync(fileOf(cwd), "utf8"), JSON.stringify({ environments: [node, python] }, null, 2) + "\n");
    assert.deepEqual(await server.main.request("environment/list", { cwd }), { environments: [node, python], trusted: true });

    await server.main.request("environment/save", { cwd, environments: [python] });
    assert.deepEqual((await server.main.request("environment/list", { cwd })).environments, [python]);
    await server.main.request("environment/save", { cwd, environments: [] });
    assert.deepEqual(JSON.parse(readFileSync(fileOf(cwd), "utf8")), { environments: [] });
    server.main.assertNoSchemaViolations();
  });

  test("an untrusted or undecided project is refused with reason untrusted; nothing is created or changed", async () => {
    const undecided = server.project();
    const refusedOne = await refused(server.main, "environment/save", { cwd: undecided, environments: [node] }, "invalidParams", /trust/);
    assert.equal(refusedOne.data?.reason, "untrusted");
    assert.equal(existsSync(join(undecided, ".knightcode")), false);

    const untrusted = server.project({ ".knightcode/environments.json": JSON.stringify({ environments: [python] }) });
    await server.main.request("project/trust/set", { cwd: untrusted, trusted: false });
    const before = fileTree(untrusted);
    const refusedTwo = await refused(server.main, "environment/save", { cwd: untrusted, environments: [node] }, "invalidParams");
    assert.equal(refusedTwo.data?.reason, "untrusted");
    assert.deepEqual(fileTree(untrusted), before);
  });

  test("at most 50 environments, unique non-empty names, scripts of at most 65,536 bytes; a refused save leaves the file byte for byte", async () => {
    const cwd = await trustedProject();
    await server.main.request("environment/save", { cwd, environments: [node] });
    const before = fileTree(cwd);
    const many = Array.from({ length: 51 }, (_, i) => ({ name: `env ${i}`, setup: { default: "true" } }));
    const bad: [unknown, RegExp?][] = [
      [[node, { ...python, name: "node" }], /unique/],
      [many],
      [[{ name: "", setup: { default: "true" } }]],
      [[{ name: "trailing ", setup: { default: "true" } }]],
      [[{ name: "two\nlines", setup: { default: "true" } }]],
      [[{ name: "x".repeat(129), setup: { default: "true" } }]],
      [[{ name: "no setup" }]],
      [[{ name: "no default", setup: { linux: "true" } }]],
      [[{ name: "empty script", setup: { default: "" } }]],
      [[{ name: "bad platform", setup: { default: "true", windows: "dir" } }]],
      [[{ name: "bad cleanup", setup: { default: "true" }, cleanup: { default: "true", freebsd: "x" } }]],
      [[{ name: "extra", setup: { default: "true" }, env: {} }]],
      // 40,000 characters, but 80,000 UTF-8 bytes.
      [[{ name: "too big", setup: { default: "é".repeat(40_000) } }], /bytes/],
      [[{ name: "too big cleanup", setup: { default: "true" }, cleanup: { default: "x".repeat(65_537) } }]],
      ["not a list"],
    ];
    for (const [environments, message] of bad) {
      await refused(server.main, "environment/save", { cwd, environments }, "invalidParams", message);
    }
    await refused(server.main, "environment/save", { cwd }, "invalidParams");
    assert.deepEqual(fileTree(cwd), before);

    const fifty = Array.from({ length: 50 }, (_, i) => ({ name: `env ${i}`, setup: { default: i === 0 ? "x".repeat(65_536) : "true" } }));
    await server.main.request("environment/save", { cwd, environments: fifty });
    assert.equal((await server.main.request("environment/list", { cwd })).environments.length, 50);
    server.main.assertNoSchemaViolations();
  });

  test("a corrupt file is never overwritten: save answers internal naming it", async () => {
    const cwd = await trustedProject({ ".knightcode/environments.json": '{"environments": [' });
    const before = fileTree(cwd);
    const error = await refused(server.main, "environment/save", { cwd, environments: [node] }, "internal");
    assert.ok(error.message.includes(fileOf(cwd)), error.message);
    assert.deepEqual(fileTree(cwd), before);
  });

  test("a save waits for the lock settings writers use, held here by another process", async () => {
    const cwd = await trustedProject();
    mkdirSync(join(cwd, ".knightcode"));
    writeFileSync(fileOf(cwd), JSON.stringify({ environments: [python] }));
    const lock = FileLock.acquire(`${fileOf(cwd)}.lock`, "test");
    let settled = false;
    const saving = server.main.request("environment/save", { cwd, environments: [node] }).finally(() => (settled = true));
    try {
      // A request sent after the save is answered while the save still waits for the lock.
      await server.main.request("environment/list", { cwd });
      assert.equal(settled, false);
      assert.deepEqual(JSON.parse(readFileSync(fileOf(cwd), "utf8")), { environments: [python] });
    } finally {
      lock.release();
    }
    await saving;
    assert.deepEqual(JSON.parse(readFileSync(fileOf(cwd), "utf8")), { environments: [node] });
    assert.equal(existsSync(`${fileOf(cwd)}.lock`), false);
  });
});
