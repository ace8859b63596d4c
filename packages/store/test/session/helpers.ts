import type { AssistantMessage, ToolResultMessage, UserMessage } from "@mariozechner/pi-ai";
import assert from "node:assert/strict";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";
import { fileURLToPath } from "node:url";
import { SessionFileError, type SessionFileErrorCode } from "../../src/session/errors.js";

/** A small seeded generator, so a failing random case can be replayed. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function userText(text: string, timestamp = 1_700_000_000_000): UserMessage {
  return { role: "user", content: text, timestamp };
}

export function assistantText(text: string, timestamp = 1_700_000_000_000): AssistantMessage {
  return {
    role: "assistant",
    content: [
      { type: "thinking", thinking: "considering" },
      { type: "text", text },
      { type: "toolCall", id: "call_1", name: "read", arguments: { path: "src/index.ts" } },
    ],
    api: "openai-completions",
    provider: "local",
    model: "test-model",
    usage: { input: 10, output: 20, cacheRead: 0, cacheWrite: 0, totalTokens: 30, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: "toolUse",
    timestamp,
  };
}

export function toolResult(text: string, timestamp = 1_700_000_000_000): ToolResultMessage {
  return { role: "toolResult", toolCallId: "call_1", toolName: "read", content: [{ type: "text", text }], isError: false, timestamp };
}

/** A temporary folder removed when the test file ends. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `kc-${prefix}-`));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export async function rejectsWithCode(promise: Promise<unknown> | (() => unknown), code: SessionFileErrorCode): Promise<SessionFileError> {
  let caught: unknown;
  try {
    await (typeof promise === "function" ? promise() : promise);
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof SessionFileError, `expected SessionFileError ${code}, got ${String(caught)}`);
  assert.equal(caught.code, code, caught.message);
  return caught;
}

const workerPath = fileURLToPath(new URL("./session-worker.js", import.meta.url));

export interface Worker {
  child: ChildProcessWithoutNullStreams;
  /** Lines printed so far. */
  lines: string[];
  /** Resolves at the first line matching `test`. */
  waitFor(test: (line: string) => boolean): Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts session-worker.js, optionally under a command prefix such as prlimit. */
export function startWorker(args: string[], prefix: string[] = []): Worker {
  const command = [...prefix, process.execPath, workerPath, ...args];
  const child = spawn(command[0]!, command.slice(1), { stdio: ["pipe", "pipe", "pipe"] });
  const lines: string[] = [];
  const waiters: Array<{ test: (line: string) => boolean; resolve: (line: string) => void }> = [];
  let buffered = "";
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.on("data", (chunk: Buffer) => {
    buffered += chunk.toString();
    for (let lf = buffered.indexOf("\n"); lf !== -1; lf = buffered.indexOf("\n")) {
      const line = buffered.slice(0, lf);
      buffered = buffered.slice(lf + 1);
      lines.push(line);
      for (const waiter of waiters.filter((w) => w.test(line))) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  const waitFor = (test: (line: string) => boolean) =>
    new Promise<string>((resolve, reject) => {
      const seen = lines.find(test);
      if (seen !== undefined) return resolve(seen);
      waiters.push({ test, resolve });
      exited.then(({ code, signal }) => reject(new Error(`worker exited (${code ?? signal}) before the expected line; stderr: ${stderr}`))).catch(reject);
    });
  after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  return { child, lines, waitFor, exited };
}
