import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { sandboxControlPaths, sandboxReadOnlyPaths, type SandboxPathOptions } from "../../src/resources/sandbox-paths.js";
import { sandbox, type Sandbox } from "./fixture.js";

function setup(t: TestContext): {
  box: Sandbox;
  git: (cwd: string, ...args: string[]) => void;
  options: (more?: Partial<SandboxPathOptions>) => SandboxPathOptions;
} {
  const box = sandbox();
  t.after(() => box.close());
  const env = { HOME: box.home, GIT_CONFIG_NOSYSTEM: "1", PATH: process.env.PATH };
  const git = (cwd: string, ...args: string[]) => void execFileSync("git", args, { cwd, env, stdio: "ignore" });
  const options = (more: Partial<SandboxPathOptions> = {}): SandboxPathOptions => ({
    root: box.cwd,
    agentDir: box.agentDir,
    home: box.home,
    env,
    codePaths: { agentDir: box.agentDir, cwd: box.cwd, cliExtensions: [], homeDir: box.home, isTrusted: () => true },
    ...more,
  });
  return { box, git, options };
}

test("a repository's hooks and config, its hooksPath folder and what the stubs source, .knightcode and the code settings load stay read-only", (t) => {
  const { box, git, options } = setup(t);
  git(box.cwd, "init", "-q");
  git(box.cwd, "config", "core.hooksPath", ".husky/_");
  box.write(
    {
      ".husky/_/pre-commit": `. "$(dirname "$0")/../../scripts/env.sh"\n`,
      "scripts/env.sh": "true\n",
      ".knightcode/settings.json": JSON.stringify({ extensions: ["../tools/ext"] }),
      "tools/ext/index.ts": `import "../../lib/shared.ts";\nimport "./later.js";\nexport default () => {};\n`,
      "lib/shared.ts": "export {};\n",
      "sub/.knightcode/settings.json": "{}",
      "src/app.ts": "export {};\n",
    },
    box.cwd,
  );
  const root = realpathSync(box.cwd);
  const { readOnly, absent } = sandboxControlPaths(options({ codePaths: { ...options().codePaths, cwd: join(box.cwd, "sub") } }));
  for (const rel of [".git/hooks", ".git/config", ".husky", "scripts/env.sh", ".knightcode", "sub/.knightcode", "tools/ext", "lib/shared.ts"]) {
    assert.ok(readOnly.includes(join(root, rel)), `${rel} in ${readOnly.join(", ")}`);
  }
  assert.ok(!readOnly.some((path) => path.endsWith("later.js") || path.endsWith("later.ts")), "an import that does not exist is no bind");
  assert.ok(!readOnly.includes(join(root, "src")) && !readOnly.includes(root), "ordinary files stay writable");
  assert.ok(!readOnly.includes(join(root, ".husky", "_")), "a place inside another kept one is not listed again");
  assert.ok(
    readOnly.every((path) => path.startsWith(root + "/")),
    "nothing outside the root for a main checkout",
  );
  assert.deepEqual(absent, [], "every place here exists");
});

test("a linked worktree: its .git file, and the common folder's hooks and config though they lie outside the root; missing places are reported apart", (t) => {
  const { box, git, options } = setup(t);
  git(box.cwd, "init", "-q");
  box.write({ "a.txt": "a" }, box.cwd);
  git(box.cwd, "add", ".");
  git(box.cwd, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "a");
  const linked = join(box.root, "linked");
  git(box.cwd, "worktree", "add", "-q", linked);
  const main = realpathSync(box.cwd);
  const { readOnly, absent } = sandboxControlPaths(options({ root: linked, codePaths: { ...options().codePaths, cwd: linked } }));
  const real = realpathSync(linked);
  for (const path of [join(real, ".git"), join(main, ".git", "hooks"), join(main, ".git", "config")])
    assert.ok(readOnly.includes(path), `${path} in ${readOnly.join(", ")}`);
  assert.ok(absent.includes(join(real, ".knightcode")), "a .knightcode folder someone could create is reported");
  assert.deepEqual(sandboxReadOnlyPaths(options({ root: linked, codePaths: { ...options().codePaths, cwd: linked } })), readOnly);
});

test("submodules' git folders keep their hooks and config, and the agent folder inside the root is kept whole", (t) => {
  const { box, git, options } = setup(t);
  git(box.cwd, "init", "-q");
  for (const name of ["a", "deep/b", "a/modules/c"]) {
    const gitDir = join(box.cwd, ".git", "modules", name);
    mkdirSync(join(gitDir, "hooks"), { recursive: true });
    box.write({ HEAD: "ref: refs/heads/main\n", config: "[core]\n" }, gitDir);
  }
  const agentDir = join(box.cwd, "agent-home");
  mkdirSync(agentDir);
  const { readOnly } = sandboxControlPaths(options({ agentDir }));
  const root = realpathSync(box.cwd);
  for (const rel of [".git/modules/a/hooks", ".git/modules/deep/b/config", ".git/modules/a/modules/c/hooks", "agent-home"]) {
    assert.ok(readOnly.includes(join(root, rel)), `${rel} in ${readOnly.join(", ")}`);
  }
});

test("a settings-named folder that holds the whole root makes the root read-only", (t) => {
  const { box, options } = setup(t);
  box.write({ "settings.json": JSON.stringify({ extensions: [box.cwd] }) }, box.agentDir);
  const { readOnly } = sandboxControlPaths(options());
  assert.ok(readOnly.includes(realpathSync(box.cwd)));
});
