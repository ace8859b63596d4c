import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { findExecutable } from "@knightcode/system/util/executable";
import { startServer, waitUntil, type TestServer } from "../support/harness.js";
import { isAlive, pidsIn } from "../support/processes.js";

const TOKEN = "file-search-test-token-0123456789abcdef";
const realFd = await findExecutable(["fd", "fdfind"], process.env);
const needsFd = realFd === undefined ? "fd (or fdfind) is not on PATH; install fd-find to run this test" : false;

const scratch = mkdtempSync(join(tmpdir(), "kc-file-search-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * An `fd` first on the server's PATH that records its pid and, while the
 * file KC_HOLD names exists, waits before it hands over to the real fd:
 * what lets a test catch a listing in flight.
 */
const holdBin = join(scratch, "bin");
const holdFile = join(scratch, "hold");
const pidsFile = join(scratch, "pids");
mkdirSync(holdBin);
writeFileSync(join(holdBin, "fd"), `#!/bin/sh\necho $$ >> "$KC_PIDS"\nwhile [ -e "$KC_HOLD" ]; do sleep 0.01; done\nexec "${realFd ?? "false"}" "$@"\n`);
chmodSync(join(holdBin, "fd"), 0o755);
const holdEnv = { PATH: `${holdBin}${delimiter}${process.env.PATH ?? ""}`, KC_HOLD: holdFile, KC_PIDS: pidsFile };
const fdPids = () => pidsIn(pidsFile);

function tree(name: string, files: Record<string, string>): string {
  const dir = join(scratch, name);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

describe("spec: file/search with a real fd", () => {
  let server: TestServer;
  let url: string;
  let repo: string;
  let many: string;
  before(async () => {
    if (needsFd) return;
    repo = tree("repo", {
      ".gitignore": "build/\n*.log\n",
      "src/config/index.ts": "",
      "src/cfg.ts": "",
      "docs/configuration.md": "",
      "build/config.js": "",
      "debug.log": "",
      ".github/workflows/ci.yml": "",
    });
    assert.equal(spawnSync("git", ["init", "-q"], { cwd: repo }).status, 0);
    const outside = tree("outside", { "config-outside.txt": "" });
    symlinkSync(outside, join(repo, "linked"));
    many = tree("many", Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`files/item${i}.txt`, ""])));
    server = await startServer({ args: ["--listen", "ws://127.0.0.1:0", "--listen-token", TOKEN], env: holdEnv });
    url = (await server.waitForStderr(/listening on (ws:\S+)/))[1]!;
  });
  after(async () => {
    if (existsSync(holdFile)) unlinkSync(holdFile);
    if (server) await server.close();
  });

  test("ranks files by descending score with their matched indices, honouring .gitignore inside a repository", { skip: needsFd }, async () => {
    const { files, truncated } = await server.main.request("file/search", { cwd: repo, query: "config" });
    assert.equal(truncated, false);
    const paths = files.map((f) => f.path);
    assert.deepEqual(paths.slice(0, 2), ["src/config/index.ts", "docs/configuration.md"]);
    assert.deepEqual(files[0]!.indices, [4, 5, 6, 7, 8, 9]);
    for (let i = 1; i < files.length; i++) assert.ok(files[i - 1]!.score >= files[i]!.score, "by descending score");
    for (const left of ["build/config.js", ".git/config", "linked/config-outside.txt"]) assert.ok(!paths.includes(left), `${left} is not listed`);
    for (const path of paths) assert.ok(!path.startsWith("./") && !path.includes("\\"), path);
    assert.deepEqual(
      (await server.main.request("file/search", { cwd: repo, query: "ci.yml" })).files.map((f) => f.path),
      [".github/workflows/ci.yml"],
    );
    assert.deepEqual((await server.main.request("file/search", { cwd: repo, query: "debuglog" })).files, []);
    assert.deepEqual(
      (await server.main.request("file/search", { cwd: repo, query: "linked" })).files.map((f) => f.path),
      ["linked"],
      "a symbolic link is listed, not followed",
    );
  });

  test("limit caps the answer, 50 by default; truncated is about the listing, not the limit", { skip: needsFd }, async () => {
    const five = await server.main.request("file/search", { cwd: many, query: "item", limit: 5 });
    assert.equal(five.files.length, 5);
    assert.equal(five.truncated, false);
    assert.equal((await server.main.request("file/search", { cwd: many, query: "item" })).files.length, 50);
    assert.equal((await server.main.request("file/search", { cwd: many, query: "item", limit: 200 })).files.length, 60);
    const longest = await server.main.request("file/search", { cwd: many, query: "q".repeat(256), limit: 200, searchId: "s".repeat(128) });
    assert.deepEqual(longest, { files: [], truncated: false }, "the largest params the spec allows");
  });

  test("a newer search with the same searchId from another connection answers the older at once with no files", { skip: needsFd }, async () => {
    const ws = await server.connectWebSocket(url, TOKEN);
    await ws.initialize();
    const cwd = tree("supersede", { "alpha.txt": "", "beta.txt": "" });
    writeFileSync(holdFile, "");
    const before = fdPids().length;
    const older = server.main.request("file/search", { cwd, query: "alpha", searchId: "composer" });
    await waitUntil("fd started", () => fdPids().length === before + 1);
    const newer = ws.request("file/search", { cwd, query: "beta", searchId: "composer" });
    assert.deepEqual(await older, { files: [], truncated: false });
    assert.ok(existsSync(holdFile), "the older answered while its listing was still held");
    unlinkSync(holdFile);
    assert.deepEqual(
      (await newer).files.map((f) => f.path),
      ["beta.txt"],
    );
    assert.equal(fdPids().length, before + 1, "both searches shared one listing");
    await ws.client.close();
  });

  test("a listing nobody waits for any more is stopped: no fd is left running", { skip: needsFd }, async () => {
    const first = tree("first", { "a.txt": "" });
    const second = tree("second", { "b.txt": "" });
    writeFileSync(holdFile, "");
    const before = fdPids().length;
    const older = server.main.request("file/search", { cwd: first, query: "a", searchId: "picker" });
    await waitUntil("fd started", () => fdPids().length === before + 1);
    const held = fdPids()[before]!;
    const newer = server.main.request("file/search", { cwd: second, query: "b", searchId: "picker" });
    assert.deepEqual(await older, { files: [], truncated: false });
    await waitUntil("the superseded listing's fd killed", () => !isAlive(held));
    unlinkSync(holdFile);
    assert.deepEqual(
      (await newer).files.map((f) => f.path),
      ["b.txt"],
    );
    await waitUntil("no fd left", () => fdPids().every((pid) => !isAlive(pid)));
  });
});

describe("spec: file/search caps and shutdown", () => {
  test("past the path cap the listing is cut and the answer says truncated", { skip: needsFd }, async (t) => {
    // KNIGHTCODE_FILE_SEARCH_MAX_PATHS exists for this test: 200,000 files would be slow to make.
    const server = await startServer({ env: { KNIGHTCODE_FILE_SEARCH_MAX_PATHS: "3" } });
    t.after(() => server.cleanup());
    const cwd = tree("capped", Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`f${i}.txt`, ""])));
    const small = tree("uncapped", { "f1.txt": "", "f2.txt": "", "f3.txt": "" });
    const answer = await server.main.request("file/search", { cwd, query: "f", limit: 200 });
    assert.equal(answer.truncated, true);
    assert.equal(answer.files.length, 3);
    assert.deepEqual(await server.main.request("file/search", { cwd: small, query: "f", limit: 200 }).then((a) => [a.files.length, a.truncated]), [3, false]);
    await server.close();
  });

  test("shutdown answers a waiting search shuttingDown and leaves no fd running", { skip: needsFd }, async (t) => {
    const pids = join(scratch, "shutdown-pids");
    const hold = join(scratch, "shutdown-hold");
    writeFileSync(hold, "");
    const server = await startServer({ env: { ...holdEnv, KC_HOLD: hold, KC_PIDS: pids } });
    t.after(() => server.cleanup());
    const cwd = tree("shutdown", { "a.txt": "" });
    const answer = server.main.rawRequest("file/search", { cwd, query: "a", searchId: "s" });
    const pid = await waitUntil("fd started", () => pidsIn(pids)[0]);
    const closedAt = Date.now();
    server.transport.close();
    assert.equal((await answer).error?.code, "shuttingDown");
    // As shutdown begins, not at the nine-second deadline that answers whatever is left.
    assert.ok(Date.now() - closedAt < 5000, `answered after ${Date.now() - closedAt} ms`);
    await server.waitForExit();
    assert.equal(isAlive(pid), false);
    server.assertNoSchemaViolations();
  });

  test("toolMissing when neither fd nor fdfind is on the server's PATH; bad params are invalidParams first", async (t) => {
    const emptyBin = join(scratch, "empty-bin");
    mkdirSync(emptyBin, { recursive: true });
    const server = await startServer({ env: { PATH: emptyBin } });
    t.after(() => server.cleanup());
    const cwd = tree("no-fd", { "a.txt": "" });
    const answer = await server.main.rawRequest("file/search", { cwd, query: "a" });
    assert.equal(answer.error?.code, "toolMissing");
    assert.match(answer.error!.message, /fd/);
    const bad: unknown[] = [
      { cwd: "relative/path", query: "a" },
      { cwd: join(scratch, "missing"), query: "a" },
      { cwd: join(cwd, "a.txt"), query: "a" },
      { cwd, query: "" },
      { cwd, query: "q".repeat(257) },
      { cwd, query: "a", limit: 0 },
      { cwd, query: "a", limit: 201 },
      { cwd, query: "a", limit: 1.5 },
      { cwd, query: "a", searchId: "s".repeat(129) },
      { cwd, query: "a", extra: true },
      { query: "a" },
    ];
    for (const params of bad) {
      const refused = await server.main.rawRequest("file/search", params);
      assert.equal(refused.error?.code, "invalidParams", JSON.stringify(params).slice(0, 80));
    }
    await server.close();
  });
});
