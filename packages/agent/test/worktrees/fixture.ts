import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { tempRoot } from "../settings/fixtures.js";

/** git as the tests run it: no global or system configuration of the machine counts. */
export const GIT_ENV: NodeJS.ProcessEnv = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };

export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, env: GIT_ENV, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/** A scratch-folder maker for one test file. */
export function scratch(name: string): () => string {
  const fresh = tempRoot(name);
  return () => realpathSync(fresh());
}

/** A repository with one commit of `files` (paths with `/` make folders). */
export function initRepo(dir: string, files: Record<string, string | Buffer> = { "README.md": "hello\n" }): string {
  mkdirSync(dir, { recursive: true });
  git(dir, "init", "-q", "-b", "main");
  git(dir, "config", "user.email", "t@example.com");
  git(dir, "config", "user.name", "T");
  write(dir, files);
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "init");
  return dir;
}

export function write(root: string, files: Record<string, string | Buffer>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

/**
 * A hook and a filter driver that leave a mark when they run: the
 * post-checkout and reference-transaction hooks, and a smudge/clean pair
 * for `*.txt`.
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

/** `git status --porcelain` without running the repository's filters (they would leave marks). */
export function status(cwd: string): string {
  return git(cwd, "-c", "core.hooksPath=/dev/null", "-c", "filter.mark.clean=", "-c", "filter.mark.smudge=", "-c", "filter.mark.required=false", "status", "--porcelain=v1", "-uall");
}

/** Every file below `root` except git's own, with its bytes (base64) and executable bit. */
export function files(root: string): Record<string, string> {
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
