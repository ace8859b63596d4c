import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

export interface SessionDirInput {
  /** `--session-dir`. */
  override?: string;
  env: NodeJS.ProcessEnv;
  /** The `sessionDir` setting. */
  settingsSessionDir?: string;
  agentDir: string;
  /** The thread's project folder. */
  cwd: string;
  /** Where a relative override or variable is taken from; the server's working directory by default. */
  baseDir?: string;
}

export type SessionDirSource = "override" | "env" | "settings" | "default";

export interface SessionDir {
  dir: string;
  source: SessionDirSource;
}

export const SESSION_DIR_ENV = "KNIGHTCODE_CODING_AGENT_SESSION_DIR";

function expandHome(path: string, env: NodeJS.ProcessEnv): string {
  if (path !== "~" && !path.startsWith("~/")) return path;
  return join(env.HOME || homedir(), path.slice(1));
}

function given(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== "";
}

/**
 * Where a thread's transcripts live. An explicit folder (flag, variable or
 * setting) holds every project's transcripts; without one, each project gets
 * its own folder under the agent dir. A relative setting is taken from the
 * agent dir, where the global settings file lives.
 */
export function resolveSessionDir(input: SessionDirInput): SessionDir {
  const base = input.baseDir ?? process.cwd();
  if (given(input.override)) return { dir: resolve(base, expandHome(input.override, input.env)), source: "override" };
  const fromEnv = input.env[SESSION_DIR_ENV];
  if (given(fromEnv)) return { dir: resolve(base, expandHome(fromEnv, input.env)), source: "env" };
  if (given(input.settingsSessionDir)) {
    return { dir: resolve(input.agentDir, expandHome(input.settingsSessionDir, input.env)), source: "settings" };
  }
  return { dir: join(resolve(input.agentDir), "sessions", projectFolderName(input.cwd)), source: "default" };
}

function canonical(cwd: string): string {
  const absolute = resolve(cwd);
  try {
    // The native call also settles letter case on case-insensitive disks.
    return realpathSync.native(absolute);
  } catch {
    return absolute;
  }
}

const SLUG_MAX = 48;

/**
 * A folder name for a project: its path's tail made filesystem-safe, for a
 * reader, then a hash of the whole real path, so two paths whose slugs agree
 * (`a/b-c` and `a-b/c`, or differing only in letter case) never share a folder,
 * and a symlinked path shares its target's.
 */
export function projectFolderName(cwd: string): string {
  const path = canonical(cwd);
  const hash = createHash("sha256").update(path).digest("hex").slice(0, 10);
  let slug = path
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/-{2,}/g, "-")
    .replace(/^[-.]+|-+$/g, "")
    .toLowerCase();
  if (slug.length > SLUG_MAX) slug = slug.slice(-SLUG_MAX).replace(/^[-.]+/, "");
  return `${slug || "root"}-${hash}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A new thread's id must be a UUID; existing files may carry any safe id. */
export function assertThreadId(id: string): void {
  if (!UUID.test(id)) throw new TypeError(`a thread id must be a UUID, not ${JSON.stringify(id)}`);
}

const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

export function isSafeSessionId(id: string): boolean {
  return SAFE_ID.test(id);
}

/** `<createdAt with : and . as ->_<id>.jsonl`: names sort by creation time, and carry no character Windows refuses. */
export function sessionFileName(createdAt: string, id: string): string {
  if (!isSafeSessionId(id)) throw new Error(`unsafe session id for a file name: ${JSON.stringify(id)}`);
  const stamp = new Date(createdAt);
  if (Number.isNaN(stamp.getTime())) throw new Error(`not a date: ${JSON.stringify(createdAt)}`);
  return `${stamp.toISOString().replace(/[:.]/g, "-")}_${id}.jsonl`;
}
