import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { execProgram } from "../../src/extensions/exec.js";
import { GIT_GUARDS, withGitGuards } from "@knightcode/system/process/git-guards";
import { createBashTool } from "../../src/tools/bash.js";
import { tempDir, textOf } from "../tools/support.js";

/**
 * A repository with a subfolder shaped as a bare repository whose config
 * runs `touch <marker>` as its fsmonitor: what a model (or a checkout, or
 * an archive) can leave in a project for a granted `git status` to find.
 */
async function plantedBareShape(t: TestContext): Promise<{ sub: string; marker: string }> {
  const repo = await tempDir(t);
  execFileSync("git", ["init", "-q"], { cwd: repo });
  const sub = join(repo, "sub");
  const marker = join(repo, "fsmonitor-ran");
  mkdirSync(join(sub, "objects", "info"), { recursive: true });
  mkdirSync(join(sub, "refs", "heads"), { recursive: true });
  writeFileSync(join(sub, "HEAD"), "ref: refs/heads/main\n");
  writeFileSync(join(sub, "config"), `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ${sub}\n\tfsmonitor = touch ${marker}\n`);
  return { sub, marker };
}

test("the bash tool's git refuses a planted bare repository, so its fsmonitor never runs", async (t) => {
  const { sub, marker } = await plantedBareShape(t);
  // The same command without the guards runs the fsmonitor: the shape is a real attack.
  spawnSync("git", ["status"], { cwd: sub, stdio: "ignore", env: { ...process.env, GIT_CONFIG_COUNT: "0" } });
  assert.equal(existsSync(marker), true, "unguarded git runs the planted fsmonitor");
  rmSync(marker);
  const bash = createBashTool({ cwd: sub });
  for (const command of ["git status", "git status --short", "git diff", "git log -1"]) {
    await bash.execute("c", { command }).catch(() => undefined);
  }
  assert.equal(existsSync(marker), false);
});

test("an extension's exec gets the same guards", async (t) => {
  const { sub, marker } = await plantedBareShape(t);
  const result = await execProgram("git", ["status"], { cwd: sub });
  assert.notEqual(result.code, 0);
  assert.match(result.stderr, /bare repository/);
  assert.equal(existsSync(marker), false);
});

test("a real repository's own fsmonitor and pager settings are overridden, and its other config still applies", async (t) => {
  const repo = await tempDir(t);
  execFileSync("git", ["init", "-q"], { cwd: repo });
  const marker = join(repo, "fsmonitor-ran");
  execFileSync("git", ["config", "core.fsmonitor", `touch ${marker}`], { cwd: repo });
  execFileSync("git", ["config", "core.pager", `touch ${marker}-pager; cat`], { cwd: repo });
  execFileSync("git", ["config", "user.name", "Repo Person"], { cwd: repo });
  const bash = createBashTool({ cwd: repo });
  assert.equal(textOf(await bash.execute("c", { command: "git config user.name" })), "Repo Person");
  await bash.execute("c", { command: "git status && git -p log -1 || true" });
  assert.equal(existsSync(marker), false);
  assert.equal(existsSync(`${marker}-pager`), false);
});

test("entries already in GIT_CONFIG_COUNT are kept, and ours come after them", async (t) => {
  const repo = await tempDir(t);
  execFileSync("git", ["init", "-q"], { cwd: repo });
  const env = {
    ...process.env,
    GIT_CONFIG_COUNT: "2",
    GIT_CONFIG_KEY_0: "user.name",
    GIT_CONFIG_VALUE_0: "From Env",
    GIT_CONFIG_KEY_1: "core.fsmonitor",
    GIT_CONFIG_VALUE_1: "touch x",
  };
  const guarded = withGitGuards(env);
  assert.equal(guarded.GIT_CONFIG_COUNT, String(2 + GIT_GUARDS.length));
  assert.equal(guarded.GIT_CONFIG_KEY_0, "user.name");
  assert.equal(guarded.GIT_CONFIG_KEY_2, "safe.bareRepository");
  assert.equal(env.GIT_CONFIG_COUNT, "2", "the caller's environment is not changed");
  const bash = createBashTool({ cwd: repo, env });
  const shown = textOf(
    await bash.execute("c", { command: "git config user.name; git config core.fsmonitor; git config safe.bareRepository; echo $GIT_PAGER" }),
  );
  assert.deepEqual(shown.split("\n"), ["From Env", "false", "explicit", "cat"]);
});

test("a count git would refuse is replaced, not appended to", () => {
  for (const count of ["x", "-1", "", "1e3"]) {
    const guarded = withGitGuards({ GIT_CONFIG_COUNT: count });
    assert.equal(guarded.GIT_CONFIG_COUNT, String(GIT_GUARDS.length), JSON.stringify(count));
    assert.equal(guarded.GIT_CONFIG_KEY_0, "safe.bareRepository");
  }
});
