import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, realpathSync, rmSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { sandboxPlaces } from "../../src/thread/thread-sandbox.js";
import { tempDir } from "../tools/support.js";

test("a thread in a repository's subfolder writes the repository's git folder, whose hooks and config stay read-only", async (t) => {
  const repo = realpathSync(await tempDir(t));
  execFileSync("git", ["init", "-q"], { cwd: repo });
  rmSync(join(repo, ".git", "hooks"), { recursive: true, force: true });
  const sub = join(repo, "sub");
  mkdirSync(sub);
  const places = sandboxPlaces({ root: sub, cwd: sub, agentDir: join(repo, "agent"), cliExtensions: [], isTrusted: () => false, homeDir: join(repo, "home") });
  assert.deepEqual(places.gitFolders, [join(repo, ".git")]);
  assert.ok(places.readOnly.includes(join(repo, ".git", "hooks")), "a missing hooks folder is made, to be kept read-only");
  assert.ok(existsSync(join(repo, ".git", "hooks")));
  assert.ok(places.readOnly.includes(join(repo, ".git", "config")));
  assert.equal(existsSync(join(sub, ".knightcode")), false, "an untrusted project gets no .knightcode");
});

test("a trusted project's missing .knightcode is made and kept read-only; outside a repository no git folder is writable", async (t) => {
  const project = realpathSync(await tempDir(t));
  const places = sandboxPlaces({
    root: project,
    cwd: project,
    agentDir: join(project, "..", "agent"),
    cliExtensions: [],
    isTrusted: () => true,
    homeDir: join(project, "home"),
  });
  assert.deepEqual(places.gitFolders, []);
  assert.ok(places.readOnly.includes(join(project, ".knightcode")));
  assert.ok(existsSync(join(project, ".knightcode")));
});
