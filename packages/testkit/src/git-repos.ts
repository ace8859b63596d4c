import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** git as the tests run it: no global or system configuration of the machine counts. */
export const GIT_TEST_ENV: NodeJS.ProcessEnv = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };

/** Runs the system git in `cwd` with GIT_TEST_ENV; its stdout. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, env: GIT_TEST_ENV, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/** Writes files below `root` (paths with `/` make folders). */
export function writeFiles(root: string, files: Record<string, string | Buffer>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

/** A repository at `dir` (made if needed) on `main` with one commit of `files`; its real path. */
export function initRepo(dir: string, files: Record<string, string | Buffer> = { "README.md": "hello\n" }): string {
  mkdirSync(dir, { recursive: true });
  git(dir, "init", "-q", "-b", "main");
  git(dir, "config", "user.email", "t@example.com");
  git(dir, "config", "user.name", "T");
  writeFiles(dir, files);
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "init");
  return realpathSync(dir);
}

/**
 * Hooks and a filter driver that leave a mark in `marks` when they run:
 * post-checkout, reference-transaction and post-index-change, and a
 * required smudge/clean pair for `*.txt` files the repository marks.
 */
export function armTraps(repo: string, marks: string): void {
  mkdirSync(marks, { recursive: true });
  for (const hook of ["post-checkout", "reference-transaction", "post-index-change"]) {
    const path = join(repo, ".git", "hooks", hook);
    writeFileSync(path, `#!/bin/sh\ntouch '${join(marks, hook)}'\n`);
    chmodSync(path, 0o755);
  }
  git(repo, "config", "filter.mark.smudge", `sh -c 'touch ${join(marks, "smudge")}; cat'`);
  git(repo, "config", "filter.mark.clean", `sh -c 'touch ${join(marks, "clean")}; cat'`);
  git(repo, "config", "filter.mark.required", "true");
}

/** `git status --porcelain` without running the repository's hooks or the traps' filters. */
export function gitStatus(cwd: string): string {
  return git(
    cwd,
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "filter.mark.clean=",
    "-c",
    "filter.mark.smudge=",
    "-c",
    "filter.mark.required=false",
    "status",
    "--porcelain=v1",
    "-uall",
  );
}

/** Every file below `root` except git's own, as its executable bit and its bytes (base64). */
export function treeFiles(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === ".git") continue;
      const path = join(dir, entry.name);
      const rel = prefix + entry.name;
      if (entry.isDirectory()) walk(path, `${rel}/`);
      else out[rel] = `${statSync(path).mode & 0o111 ? "x" : "-"}:${readFileSync(path).toString("base64")}`;
    }
  };
  walk(root, "");
  return out;
}

/** A repository a test drives: its root, git in it, files written into it, commits. */
export interface TestRepo {
  root: string;
  env: NodeJS.ProcessEnv;
  git(...args: string[]): string;
  write(path: string, content: string): void;
  commit(message: string, files?: Record<string, string>): string;
}

/** Makes a repository at `root` (bare for a remote), driven by git under `env`. */
export function repoAt(root: string, options: { env: NodeJS.ProcessEnv; bare?: boolean }): TestRepo {
  const { env } = options;
  const run = (...args: string[]) => execFileSync("git", args, { cwd: root, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  run("init", "-q", "-b", "main", ...(options.bare ? ["--bare"] : []));
  if (!options.bare) {
    run("config", "user.email", "t@example.com");
    run("config", "user.name", "Tess Ter");
  }
  const write = (path: string, content: string) => writeFiles(root, { [path]: content });
  return {
    root,
    env,
    git: run,
    write,
    commit(message, files = {}) {
      writeFiles(root, files);
      run("add", "-A");
      run("commit", "-q", "--allow-empty", "-m", message);
      return run("rev-parse", "HEAD").trim();
    },
  };
}
