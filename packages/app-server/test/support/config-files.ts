import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, lstatSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { RawResponse, TestClient } from "./harness.js";

export function sha256(bytes: string | Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/**
 * Every file and folder under `root` (or only the entries whose top-level
 * name `keep` accepts), each file by the hash of its bytes: two equal trees
 * mean nothing was created, removed or changed by a single byte.
 */
export function fileTree(root: string, keep: (name: string) => boolean = () => true): Map<string, string> {
  const out = new Map<string, string>();
  if (!existsSync(root)) return out;
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (dir === root && !keep(name)) continue;
      const stat = lstatSync(path);
      const key = relative(root, path);
      if (stat.isDirectory()) {
        out.set(key, "dir");
        walk(path);
      } else {
        out.set(key, stat.isSymbolicLink() ? "link" : sha256(readFileSync(path)));
      }
    }
  };
  walk(root);
  return out;
}

/** The files of the agent dir that settings and trust writes could touch, temporaries and lock files included. */
export const settingsEntries = (name: string): boolean =>
  name.startsWith("settings") || name.startsWith(".settings") || name.startsWith("trust") || name.startsWith(".trust");

/** Sends a request the schema may refuse and checks that it fails with `code`; returns the error. */
export async function refused(client: TestClient, method: string, params: unknown, code: string, message?: RegExp): Promise<NonNullable<RawResponse["error"]>> {
  const answer = await client.rawRequest(method, params);
  assert.ok(answer.error, `${method} ${JSON.stringify(params).slice(0, 200)} should fail with ${code}, answered ${JSON.stringify(answer.result)}`);
  assert.equal(answer.error.code, code, `${method} ${JSON.stringify(params).slice(0, 200)}: ${answer.error.message}`);
  if (message) assert.match(answer.error.message, message);
  return answer.error;
}
