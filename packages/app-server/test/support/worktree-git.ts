import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** git as the tests run it: the machine's global and system configuration never count. */
const GIT_ENV: NodeJS.ProcessEnv = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };

/** The same for the server under test. */
export const SERVER_GIT_ENV = { GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };

export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, env: GIT_ENV, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

export function write(root: string, files: Record<string, string | Buffer>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

/** A repository at `dir` with one commit of `files`; its real path. */
export function initRepo(dir: string, files: Record<string, string | Buffer> = { "README.md": "hello\n" }): string {
  mkdirSync(dir, { recursive: true });
  git(dir, "init", "-q", "-b", "main");
  git(dir, "config", "user.email", "t@example.com");
  git(dir, "config", "user.name", "T");
  write(dir, files);
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "init");
  return realpathSync(dir);
}

/** A post-checkout hook and a required smudge/clean filter for `*.txt` that leave a mark in `marks` when they run. */
export function armTraps(repo: string, marks: string): void {
  mkdirSync(marks, { recursive: true });
  for (const hook of ["post-checkout", "reference-transaction"]) {
    const path = join(repo, ".git", "hooks", hook);
    writeFileSync(path, `#!/bin/sh\ntouch '${join(marks, hook)}'\n`);
    chmodSync(path, 0o755);
  }
  git(repo, "config", "filter.mark.smudge", `sh -c 'touch ${join(marks, "smudge")}; cat'`);
  git(repo, "config", "filter.mark.clean", `sh -c 'touch ${join(marks, "clean")}; cat'`);
  git(repo, "config", "filter.mark.required", "true");
}

/** `git status` of a working tree, without running its filters. */
export function status(cwd: string): string {
  return git(cwd, "-c", "filter.mark.clean=", "-c", "filter.mark.smudge=", "-c", "filter.mark.required=false", "status", "--porcelain=v1", "-uall");
}

/** The folders `git worktree list` names. */
export function registered(repo: string): string[] {
  return git(repo, "worktree", "list", "--porcelain")
    .split("\n")
    .filter((line) => line.startsWith("worktree "))
    .map((line) => line.slice("worktree ".length));
}

/** Every file below `root` but git's own, as its executable bit and bytes. */
export function files(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === ".git") continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path, `${prefix}${entry.name}/`);
      else out[prefix + entry.name] = `${statSync(path).mode & 0o111 ? "x" : "-"}:${readFileSync(path).toString("base64")}`;
    }
  };
  walk(root, "");
  return out;
}
