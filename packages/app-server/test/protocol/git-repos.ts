import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { AppServerError } from "@knightcode/app-server-protocol";
import type { TestServer } from "../support/harness.js";

/** git for the tests' own commands: the server's HOME, no system config, so the machine's settings play no part. */
export function gitEnv(home: string): NodeJS.ProcessEnv {
  return { ...process.env, HOME: home, XDG_CONFIG_HOME: home, GIT_CONFIG_NOSYSTEM: "1" };
}

/** What a server for the git tests runs with: the same isolation. */
export const SERVER_GIT_ENV = { GIT_CONFIG_NOSYSTEM: "1" };

export interface Repo {
  root: string;
  git(...args: string[]): string;
  write(path: string, content: string): void;
  commit(message: string, files?: Record<string, string>): string;
}

/** A repository in a new project folder of the server's home (or a bare one, for a remote). */
export function makeRepo(server: TestServer, options: { bare?: boolean; name?: string } = {}): Repo {
  const root = realpathSync(server.project({}, options.name));
  const env = gitEnv(server.home);
  const git = (...args: string[]) => execFileSync("git", args, { cwd: root, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  git("init", "-q", "-b", "main", ...(options.bare ? ["--bare"] : []));
  if (!options.bare) {
    git("config", "user.email", "t@example.com");
    git("config", "user.name", "Tess Ter");
  }
  const write = (path: string, content: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  };
  return {
    root,
    git,
    write,
    commit(message, files = {}) {
      for (const [path, content] of Object.entries(files)) write(path, content);
      git("add", "-A");
      git("commit", "-q", "--allow-empty", "-m", message);
      return git("rev-parse", "HEAD").trim();
    },
  };
}

/** Awaits a request that must fail with `code`; answers the error's data. */
export async function failsWith(request: Promise<unknown>, code: string, reason?: string): Promise<Record<string, unknown>> {
  let caught: AppServerError | undefined;
  try {
    await request;
  } catch (error) {
    caught = error as AppServerError;
  }
  assert.ok(caught, `expected ${code}, but the request succeeded`);
  assert.equal(caught.code, code, caught.message);
  if (reason !== undefined) assert.equal(caught.data?.reason, reason, caught.message);
  return caught.data ?? {};
}
