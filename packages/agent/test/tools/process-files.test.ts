import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { createFindTool } from "../../src/tools/find.js";
import { createGrepTool } from "../../src/tools/grep.js";
import { createLsTool } from "../../src/tools/ls.js";
import { createReadTool } from "../../src/tools/read.js";
import type { ToolContext } from "../../src/tools/context.js";
import { isProcessSecretFile } from "../../src/tools/process-files.js";
import { grepEngines } from "./search-support.js";
import { rejectsWith, tempDir, textOf } from "./support.js";

const PROC = existsSync("/proc/self/environ") ? false : "no /proc here";
const PROCESS_FILE = /process's environment, command line or memory/;

test("a process's environ, cmdline and mem are recognised by any path that reaches them", { skip: PROC }, async (t) => {
  const dir = await tempDir(t);
  await symlink("/proc/self/environ", join(dir, "env-link"));
  await symlink("/proc/self", join(dir, "self-link"));
  for (const path of [
    "/proc/self/environ",
    `/proc/${process.pid}/environ`,
    `/proc/${process.pid}/cmdline`,
    "/proc/self/mem",
    "/proc/thread-self/environ",
    `/proc/self/task/${process.pid}/environ`,
    `/proc/1/environ`,
    join(dir, "env-link"),
    join(dir, "self-link", "cmdline"),
  ]) {
    assert.equal(isProcessSecretFile(path), true, path);
  }
  await writeFile(join(dir, "environ"), "a file that is only named so");
  for (const path of ["/proc/self/status", "/proc/self/stat", join(dir, "environ"), join(dir, "missing", "environ")]) {
    assert.equal(isProcessSecretFile(path), false, path);
  }
});

test("read, ls and find refuse the server's own environment and its command line, which may hold the token", { skip: PROC }, async (t) => {
  const dir = await tempDir(t);
  await symlink("/proc/self/environ", join(dir, "env-link"));
  const ctx: ToolContext = { cwd: dir };
  for (const path of ["/proc/self/environ", `/proc/${process.pid}/cmdline`, "env-link", "/proc/thread-self/environ"]) {
    await rejectsWith(createReadTool(ctx).execute("c", { path }), "protectedPath", PROCESS_FILE);
  }
  await rejectsWith(createLsTool(ctx).execute("c", { path: "/proc/self/environ" }), "protectedPath", PROCESS_FILE);
  await rejectsWith(createFindTool(ctx, { search: "builtin" }).execute("c", { pattern: "*", path: "env-link" }), "protectedPath", PROCESS_FILE);
  // Names are no secret: a listing of the folder still shows them.
  assert.match(textOf(await createLsTool(ctx).execute("c", { path: "/proc/self" })), /^environ$/m);
  assert.match(textOf(await createReadTool(ctx).execute("c", { path: "/proc/self/status" })), /^Pid:/m);
});

for (const engine of grepEngines) {
  test(`grep (${engine.name}) refuses a process's environment as its path`, { skip: PROC || engine.skip }, async (t) => {
    const dir = await tempDir(t);
    await symlink("/proc/self/environ", join(dir, "env-link"));
    const grep = createGrepTool({ cwd: dir }, engine.options);
    for (const path of ["/proc/self/environ", `/proc/${process.pid}/environ`, "env-link"]) {
      await rejectsWith(grep.execute("c", { pattern: "PATH", path }), "protectedPath", PROCESS_FILE);
    }
  });

  test(`grep (${engine.name}) refuses the server's token file and passes over it in a folder`, { skip: engine.skip }, async (t) => {
    const dir = await tempDir(t);
    const secret = join(dir, "secret");
    await mkdir(secret);
    await writeFile(join(secret, "ws-token"), "token-0123456789abcdef\n");
    await writeFile(join(secret, "notes.txt"), "token-0123456789abcdef is not here\n");
    await symlink(join(secret, "ws-token"), join(dir, "token-link"));
    const ctx: ToolContext = { cwd: dir, secretFiles: [join(secret, "ws-token")] };
    const grep = createGrepTool(ctx, engine.options);
    for (const path of ["secret/ws-token", "token-link"]) {
      await rejectsWith(grep.execute("c", { pattern: "token", path }), "protectedPath", /WebSocket token/);
    }
    assert.equal(textOf(await grep.execute("c", { pattern: "token-0123", path: "secret" })), "secret/notes.txt:1: token-0123456789abcdef is not here");
    await rejectsWith(createReadTool(ctx).execute("c", { path: "token-link" }), "protectedPath", /WebSocket token/);
  });
}
