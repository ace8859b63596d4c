import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { TestServer } from "../support/harness.js";

/** A repository made with the system git in a server's home: its HOME, so no global config of the machine is read. */
export interface Repo {
  root: string;
  git(...args: string[]): string;
  write(path: string, content: string | Buffer, mode?: number): void;
  remove(path: string): void;
  read(path: string): string;
}

export function makeRepo(server: TestServer, files: Record<string, string> = {}, options: { branch?: string } = {}): Repo {
  const root = join(server.home, `repo-${Math.random().toString(36).slice(2, 8)}`);
  mkdirSync(root, { recursive: true });
  const real = realpathSync(root);
  const env = {
    ...process.env,
    HOME: server.home,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: "Test",
    GIT_AUTHOR_EMAIL: "test@example.com",
    GIT_COMMITTER_NAME: "Test",
    GIT_COMMITTER_EMAIL: "test@example.com",
  };
  const repo: Repo = {
    root: real,
    git: (...args) => execFileSync("git", args, { cwd: real, env, encoding: "utf8", maxBuffer: 1 << 28 }),
    write(path, content, mode) {
      mkdirSync(dirname(join(real, path)), { recursive: true });
      writeFileSync(join(real, path), content);
      if (mode !== undefined) chmodSync(join(real, path), mode);
    },
    remove: (path) => rmSync(join(real, path), { recursive: true, force: true }),
    read: (path) => readFileSync(join(real, path), "utf8"),
  };
  repo.git("init", "-q", "-b", options.branch ?? "main");
  for (const [path, content] of Object.entries(files)) repo.write(path, content);
  if (Object.keys(files).length > 0) {
    repo.git("add", "-A");
    repo.git("commit", "-q", "-m", "base");
  }
  return repo;
}

export const lines = (count: number, tag = "line") => Array.from({ length: count }, (_, i) => `${tag} ${i + 1}\n`).join("");
