import { existsSync, readdirSync, type Dirent } from "node:fs";
import { join } from "node:path";
import { ARCHIVED_FOLDER, isArchivedPath } from "@knightcode/store/session/archive";
import { readSettings } from "@knightcode/agent/settings/read";
import { isDirectory } from "@knightcode/system/fs/is-directory";
import { resolveSessionDir } from "@knightcode/store/session/paths";
import type { ServerContext } from "../host/context.js";
import { rpcError } from "../rpc/errors.js";

/**
 * Where transcripts are: the session folders this server uses and the path
 * of each thread it has seen, active or archived. Paths are learned as
 * threads are created, listed, moved and deleted; anything unknown is looked
 * up by file name in the session folders.
 */
export class ThreadLocator {
  private readonly knownPaths = new Map<string, string>();

  constructor(private readonly context: ServerContext) {}

  /** Where new sessions of a project go: --session-dir, the environment, the sessionDir setting, or one folder per project. */
  sessionDirFor(cwd: string): string {
    return resolveSessionDir({
      override: this.context.sessionDir,
      env: this.context.env,
      settingsSessionDir: this.configuredSessionDir(),
      agentDir: this.context.agentDir,
      cwd,
    }).dir;
  }

  private configuredSessionDir(): string | undefined {
    const global = readSettings({ agentDir: this.context.agentDir }).scopes.global.settings;
    return typeof global.sessionDir === "string" ? global.sessionDir : undefined;
  }

  /** Every folder that may hold session files: the configured ones and each per-project folder. */
  sessionRoots(): string[] {
    const roots = new Set<string>();
    const env = this.context.env.KNIGHTCODE_CODING_AGENT_SESSION_DIR;
    if (this.context.sessionDir) roots.add(this.context.sessionDir);
    if (env) roots.add(env);
    const configured = this.configuredSessionDir();
    if (configured) roots.add(configured);
    const perProject = join(this.context.agentDir, "sessions");
    let entries: Dirent[] = [];
    try {
      // The kind comes with each name: one stat per entry would cost a listing a call per project.
      entries = readdirSync(perProject, { withFileTypes: true });
    } catch {
      // No sessions yet.
    }
    for (const entry of entries) {
      const dir = join(perProject, entry.name);
      // A link (or a file system that does not tell the kind) is looked at; one that leads nowhere hides no other folder.
      if (entry.isDirectory() || (!entry.isFile() && isDirectory(dir))) roots.add(dir);
    }
    return [...roots];
  }

  /** A thread's active session file; an archived thread cannot be loaded until it is unarchived. */
  locate(threadId: string): string | undefined {
    const found = this.find(threadId);
    if (found?.archived) throw rpcError("threadNotFound", `thread ${threadId} is archived; unarchive it first`, { reason: "archived" });
    return found?.path;
  }

  /** A thread's transcript, active or archived: known paths first, then the session folders by file name. */
  find(threadId: string): { path: string; archived: boolean } | undefined {
    if (!/^[0-9a-zA-Z-]{1,128}$/.test(threadId)) return undefined;
    const known = this.knownPaths.get(threadId);
    if (known && existsSync(known)) return { path: known, archived: isArchivedPath(known) };
    this.knownPaths.delete(threadId);
    const suffix = `_${threadId}.jsonl`;
    const roots = this.sessionRoots();
    for (const dir of [...roots, ...roots.map((root) => join(root, ARCHIVED_FOLDER))]) {
      let names: string[];
      try {
        names = readdirSync(dir);
      } catch {
        continue;
      }
      const match = names.find((name) => name.endsWith(suffix));
      if (match) {
        const path = join(dir, match);
        this.knownPaths.set(threadId, path);
        return { path, archived: isArchivedPath(path) };
      }
    }
    return undefined;
  }

  /** A transcript was created, moved (archive, unarchive) or went (delete). */
  moved(threadId: string, path: string | undefined): void {
    if (path === undefined) this.knownPaths.delete(threadId);
    else this.knownPaths.set(threadId, path);
  }
}
