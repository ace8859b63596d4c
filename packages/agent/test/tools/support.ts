import assert from "node:assert/strict";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { ToolError, type ToolErrorCode } from "../../src/tools/errors.js";

/** A fresh directory (its real path, so cwd-relative display is exact) removed after the test. */
export async function tempDir(t: TestContext): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), "kc-tools-")));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

export function textOf(result: { content: ReadonlyArray<{ type: string; text?: string }> }): string {
  return result.content
    .filter((part) => part.type === "text")
    .map((part) => part.text ?? "")
    .join("\n");
}

/** Awaits a tool call that must fail with a ToolError of `code` whose message matches `pattern`. */
export async function rejectsWith(call: Promise<unknown>, code: ToolErrorCode, pattern?: RegExp): Promise<ToolError> {
  let caught: unknown;
  try {
    await call;
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof ToolError, `expected a ToolError, got ${String(caught)}`);
  assert.equal(caught.code, code, caught.message);
  if (pattern) assert.match(caught.message, pattern);
  return caught;
}

/** A small deterministic PRNG (mulberry32) so random cases can be replayed. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}
