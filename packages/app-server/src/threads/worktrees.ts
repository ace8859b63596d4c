import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { GitConflictError } from "@knightcode/repo/git/errors";
import { ProcessGroups } from "@knightcode/system/process/groups";
import { deleteWorktree } from "@knightcode/repo/worktrees/remove";
import { listRecords, managedContaining, updateRecord, type StoredWorktree, type WorktreeRecord } from "@knightcode/repo/worktrees/record";
import { pruneWorktrees } from "@knightcode/repo/worktrees/prune";
import { readEnvironments, scriptFor } from "@knightcode/agent/environments/environments-file";
import { readSettings } from "@knightcode/agent/settings/read";
import { readThreadPlace } from "@knightcode/repo/worktrees/workspace";
import { runWorktreeScript } from "@knightcode/repo/worktrees/scripts";
import { threadChildEnv } from "@knightcode/agent/thread/child-env";
import { worktreesRoot } from "@knightcode/repo/worktrees/layout";
import type { Connection } from "../rpc/connection.js";
import type { LoadedThread } from "./loaded-thread.js";
import type { ThreadManager } from "./manager.js";
import { isInside } from "@knightcode/system/fs/real-target";

/** A cleanup script gets this long before its process group is stopped and the deletion goes on. */
const CLEANUP_TIMEOUT_MS = 5 * 60_000;
/** A thread's turns are written to its record as a use at most this often; loads always are. */
const USE_WRITE_MS = 60_000;

/** Who hears a script's output: the connection that asked, about one of its threads. */
export interface ProgressTarget {
  threadId: string;
  connection: Connection;
}

/**
 * The server's side of managed worktrees: where they are (`worktrees.root`,
 * `worktrees.keep`, global settings only), which are in use (a thread of
 * this process is loaded there), when they were last used, their
 * environments' scripts, and deleting them on archive and past `keep`.
 */
export class ServerWorktrees {
  /** Cleanup scripts run outside any thread; whatever they leave dies with the server. */
  private readonly cleanupProcesses = new ProcessGroups();
  private readonly lastUseWritten = new Map<string, number>();
  private pruning: Promise<void> = Promise.resolve();

  constructor(private readonly threads: ThreadManager) {}

  private get context() {
    return this.threads.context;
  }

  /** `worktrees.root` and `worktrees.keep` from the global settings: a project cannot move or shrink what the server manages. */
  settings(): { root: string; keep: number } {
    const effective = readSettings({ agentDir: this.context.agentDir }).effective.worktrees;
    return { root: worktreesRoot(this.context.agentDir, effective.root), keep: effective.keep };
  }

  /** The managed worktree `path` lies in, if any. */
  containing(path: string): StoredWorktree | undefined {
    return managedContaining(this.settings().root, path);
  }

  /** Every managed worktree under the root. */
  all(): StoredWorktree[] {
    return listRecords(this.settings().root);
  }

  /** A thread of this process is loaded in the worktree at `path`. */
  inUse = (path: string): boolean => {
    let real: string;
    try {
      real = realpathSync(path);
    } catch {
      return false;
    }
    return [...this.threads.loadedThreads()].some((thread) => !thread.isClosed && isInside(real, thread.cwd));
  };

  /**
   * A thread loaded or started a turn in its worktree: the record learns
   * that the thread runs there and when it was last used (what pruning
   * orders by). Written in the background; a turn at most once a minute per thread.
   */
  used(thread: LoadedThread, how: "load" | "turn"): void {
    const { place } = thread;
    if (place.mode !== "worktree" || place.path === undefined) return;
    const now = Date.now();
    const last = this.lastUseWritten.get(thread.id);
    if (how === "turn" && last !== undefined && now - last < USE_WRITE_MS) return;
    this.lastUseWritten.set(thread.id, now);
    const found = this.containing(place.path);
    if (!found) return;
    updateRecord(found.bucketDir, (record) => {
      record.lastUsedAt = new Date(now).toISOString();
      if (!record.threadIds.includes(thread.id)) record.threadIds.push(thread.id);
    }).catch((error: unknown) => thread.log.warn(`cannot record the use of ${place.path}`, error));
  }

  /** Deletes worktrees past `worktrees.keep`, one pruning at a time; failures are logged. */
  prune(): Promise<void> {
    const run = async () => {
      const { root, keep } = this.settings();
      const deleted = await pruneWorktrees({
        root,
        keep,
        inUse: this.inUse,
        beforeDelete: (record) => this.cleanup(record),
        env: this.context.env,
        onError: (worktree, error) => this.context.log.warn(`pruning ${worktree.record.path}`, error),
      });
      if (deleted.length > 0) this.context.log.info(`pruned worktrees past worktrees.keep (${keep}): ${deleted.join(", ")}`);
    };
    this.pruning = this.pruning.then(run).catch((error: unknown) => this.context.log.warn("pruning worktrees", error));
    return this.pruning;
  }

  /** Deletes one worktree after its snapshot (worktree/delete); the cleanup's output goes to `progress`. */
  delete(found: StoredWorktree, progress?: ProgressTarget): Promise<{ snapshot?: string }> {
    return deleteWorktree(found, { inUse: this.inUse, beforeDelete: (record) => this.cleanup(record, progress), env: this.context.env });
  }

  /**
   * After a worktree thread was archived: its worktree is snapshotted and
   * deleted unless another thread still runs there (loaded, or active and
   * placed there) or it holds a nested repository. Never fails the archive.
   */
  async retire(threadId: string, transcript: string, connection: Connection): Promise<void> {
    try {
      const { place } = await readThreadPlace(transcript);
      if (place.mode !== "worktree" || place.path === undefined) return;
      const found = this.containing(place.path);
      if (!found || found.record.deleted) return;
      const others = await this.otherThreadsIn(found.record, threadId);
      if (others.length > 0) {
        this.context.log.info(`archived thread ${threadId}: ${place.path} stays, threads ${others.join(", ")} still run there`);
        return;
      }
      const { snapshot } = await this.delete(found, { threadId, connection });
      this.context.log.info(`archived thread ${threadId}: ${place.path} deleted, its snapshot is ${snapshot ?? "none"}`);
    } catch (error) {
      const skipped = error instanceof GitConflictError && (error.reason === "worktreeInUse" || error.reason === "submodules");
      if (skipped) this.context.log.info(`archived thread ${threadId}: its worktree stays: ${error.message}`);
      else this.context.log.warn(`archived thread ${threadId}: its worktree could not be deleted`, error);
    }
  }

  /** The record's threads other than `threadId` that are not archived and still run in its worktree. */
  private async otherThreadsIn(record: WorktreeRecord, threadId: string): Promise<string[]> {
    const others: string[] = [];
    for (const id of record.threadIds) {
      if (id === threadId) continue;
      const loaded = this.threads.get(id);
      if (loaded) {
        if (loaded.place.path === record.path) others.push(id);
        continue;
      }
      const found = this.threads.find(id);
      if (!found || found.archived) continue;
      const place = await readThreadPlace(found.path).then(
        (read) => read.place,
        () => undefined,
      );
      if (place?.path === record.path) others.push(id);
    }
    return others;
  }

  /**
   * The environment's setup script of a new worktree, run once the thread
   * exists: its output streams to the connection that started it, its
   * process group belongs to the thread (killed when the thread closes),
   * and a failure is a warning. Turns do not wait for it.
   */
  runSetup(thread: LoadedThread, connection: Connection, environment: string, script: string, worktree: string): void {
    const send = (output: string, end?: { exitCode: number | null }) =>
      connection.notify("thread/workspace/progress", { threadId: thread.id, phase: "setup", output, ...(end ? { done: true, exitCode: end.exitCode } : {}) });
    const env = threadChildEnv(this.threads.environment, thread.runtime.settings);
    runWorktreeScript({ script, worktree, env, processes: thread.runtime.processes, onOutput: (output) => send(output) })
      .then((result) => {
        send("", { exitCode: result.exitCode });
        if (result.exitCode === 0) return;
        const how = result.error ?? (result.exitCode === null ? `was stopped${result.signal ? ` by ${result.signal}` : ""}` : `exited with ${result.exitCode}`);
        connection.notify("warning", {
          threadId: thread.id,
          warning: { message: `The setup script of environment "${environment}" ${how}.`, source: "server" },
        });
      })
      .catch((error: unknown) => thread.log.warn("the setup script", error));
  }

  /**
   * The cleanup script of a worktree's environment, before it is deleted,
   * for a project that is still trusted and still has that environment.
   * Its output goes to `progress` when someone asked; it is bounded in time.
   */
  private async cleanup(record: WorktreeRecord, progress?: ProgressTarget): Promise<void> {
    if (record.environment === undefined) return;
    const project = record.projectCwd;
    const trust = this.threads.environment.trust.decisionFor(project);
    if (trust !== true) return;
    const environment = readEnvironments(project).environments.find((entry) => entry.name === record.environment);
    if (!environment?.cleanup) return;
    const send = (output: string, end?: { exitCode: number | null }) =>
      progress?.connection.notify("thread/workspace/progress", {
        threadId: progress.threadId,
        phase: "cleanup",
        output,
        ...(end ? { done: true, exitCode: end.exitCode } : {}),
      });
    const env = threadChildEnv(this.threads.environment, readSettings({ agentDir: this.context.agentDir, cwd: project, trust }));
    const result = await runWorktreeScript({
      script: scriptFor(environment.cleanup),
      worktree: record.path,
      env,
      processes: this.cleanupProcesses,
      onOutput: (output) => send(output),
      timeoutMs: CLEANUP_TIMEOUT_MS,
      stopLeftovers: true,
    });
    send("", { exitCode: result.exitCode });
    if (result.exitCode !== 0)
      this.context.log.warn(`the cleanup script of environment "${record.environment}" in ${record.path} ended with ${result.exitCode ?? result.signal}`);
  }

  /** Stops what cleanup scripts still run (shutdown). */
  dispose(): Promise<void> {
    return this.cleanupProcesses.dispose();
  }

  /** A path a client named, resolved without links when it exists. */
  static resolvePath(path: string): string {
    try {
      return realpathSync(path);
    } catch {
      return resolve(path);
    }
  }
}
