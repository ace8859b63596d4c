import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test, type TestContext } from "node:test";
import { analyzeShellCommand } from "@knightcode/agent/approvals/shell-prefix";
import type { ShellFolder } from "@knightcode/agent/approvals/shell-paths";
import { grantFolder } from "../../src/approvals/grant-folder.js";

function tree(t: TestContext, files: readonly string[]): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "kc-grant-folder-")));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  for (const path of files) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), "x\n");
  }
  return root;
}

const prefixIn = (folder: ShellFolder, command: string): string | undefined => analyzeShellCommand(command, "bash", folder).prefix?.join(" ");

function reasonIn(folder: ShellFolder, command: string): string {
  const analysis = analyzeShellCommand(command, "bash", folder);
  assert.equal(analysis.prefix, undefined, `${command} gets no prefix`);
  return analysis.prefix === undefined ? analysis.reason : "";
}

test("control places may be read under a grant; a program that may write what it names may not name them", (t) => {
  const root = tree(t, ["project/README.md", "project/.knightcode/settings.json", "project/.git/config", "agent/auth.json"]);
  const folder = grantFolder({ cwd: join(root, "project"), controls: { agentDir: join(root, "agent") } });
  assert.equal(prefixIn(folder, "cat .knightcode/settings.json .git/config"), "cat");
  assert.equal(prefixIn(folder, "git diff .knightcode/settings.json"), "git diff");
  assert.match(reasonIn(folder, "git mv README.md .knightcode/extensions/x.ts"), /\.knightcode\/, whose files can change what later commands run/);
  assert.match(reasonIn(folder, "tsc .knightcode/extensions/x.ts"), /\.knightcode\//);
  assert.match(reasonIn(folder, "cat ../agent/auth.json"), /agent folder/);
});

test("the thread's own worktree inside the agent folder is the project's; the rest of the agent folder is not", (t) => {
  const root = tree(t, ["agent/auth.json", "agent/worktrees/w1/README.md"]);
  const worktree = join(root, "agent", "worktrees", "w1");
  const folder = grantFolder({ cwd: worktree, controls: { agentDir: join(root, "agent"), ownWorktree: worktree } });
  assert.equal(prefixIn(folder, "cat README.md"), "cat");
  assert.match(reasonIn(folder, "cat ../../auth.json"), /agent folder/);
});

test("the server's token file is protected inside the folder too", (t) => {
  const root = tree(t, ["project/README.md", "project/token"]);
  const folder = grantFolder({ cwd: join(root, "project"), controls: {}, secretFiles: [join(root, "project", "token")] });
  assert.equal(prefixIn(folder, "cat README.md"), "cat");
  assert.match(reasonIn(folder, "cat ./token"), /secret/);
});

test("in a folder too broad to be a project, every named path is refused, and a command naming none keeps its prefix", () => {
  const folder = grantFolder({ cwd: "/", controls: {} });
  assert.match(reasonIn(folder, "cat etc/hostname"), /file system root/);
  assert.match(reasonIn(folder, "ls home"), /file system root/);
  assert.equal(prefixIn(folder, "git status"), "git status");
  assert.equal(prefixIn(folder, "cat /dev/null"), "cat");
});
