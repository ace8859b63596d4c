import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import assert from "node:assert/strict";
import type { ScriptedModelServer } from "@knightcode/testkit";
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

export type ToolCall = { name: string; arguments: unknown };

/** The model makes these tool calls, one reply each, then says done. */
export function scriptTurn(model: ScriptedModelServer, ...calls: ToolCall[]): void {
  model.enqueue(...calls.map((call) => ({ toolCalls: [call] })), { text: "done" });
}

/** Starts a turn and waits for its end; `mark` is where its notifications begin. */
export async function runTurn(server: TestServer, threadId: string, text: string): Promise<{ turnId: string; mark: number }> {
  const mark = server.main.notifications.length;
  await server.main.request("turn/start", { threadId, text });
  const completed = await server.main.waitForNotification("turn/completed", (p) => p.threadId === threadId, { since: mark });
  return { turnId: completed.turn.id, mark };
}

/** A request that must fail: its error. */
export async function failure(server: TestServer, method: string, params: unknown): Promise<{ code: string; message: string; data?: Record<string, unknown> }> {
  const answer = await server.main.rawRequest(method, params);
  assert.ok(answer.error, `${method} should fail: ${JSON.stringify(answer.result)}`);
  return answer.error;
}
