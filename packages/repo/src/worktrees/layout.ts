import { randomBytes } from "node:crypto";
import { realpathSync } from "node:fs";
import { isAbsolute, join, resolve, sep } from "node:path";
import { isWithin } from "@knightcode/system/fs/real-target";

/**
 * Managed worktrees live at `<root>/<bucket>/<repository folder name>`,
 * `bucket` being four random hex digits, and each bucket holds the
 * worktree's record, `worktree.json`, beside the worktree. Nothing outside
 * that layout is ever treated as a managed worktree.
 */
export const RECORD_FILE = "worktree.json";

const BUCKET = /^[0-9a-f]{4}$/;

/** `worktrees.root` as the settings give it: null means `<agentDir>/worktrees`; a relative path is taken from the agent dir. */
export function worktreesRoot(agentDir: string, setting: string | null | undefined): string {
  if (setting === null || setting === undefined || setting === "") return join(resolve(agentDir), "worktrees");
  return isAbsolute(setting) ? resolve(setting) : resolve(agentDir, setting);
}

export function newBucket(): string {
  return randomBytes(2).toString("hex");
}

export function isBucket(name: string): boolean {
  return BUCKET.test(name);
}

export function recordPath(bucketDir: string): string {
  return join(bucketDir, RECORD_FILE);
}

/** The real path of an existing file or folder, or undefined when it is gone. */
export function existingRealPath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/**
 * The bucket folder that would hold `path` (real path) under `root` (real
 * path): `<root>/<bucket>` when `path` lies in a bucket, else undefined.
 */
export function bucketDirOf(root: string, path: string): string | undefined {
  if (!isWithin(root, path) || path === root) return undefined;
  const bucket = path.slice(root.length + (root.endsWith(sep) ? 0 : 1)).split(sep)[0] ?? "";
  return isBucket(bucket) ? join(root, bucket) : undefined;
}
