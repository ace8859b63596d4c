import { NotGitRepoError } from "@knightcode/repo/git/errors";
import { SnapshotTooLargeError, keepTurnTrees, snapshotTree, treeTotals, type FileTotals, type TurnTrees } from "@knightcode/repo/git/diff/snapshot";
import { backdateSnapshot } from "@knightcode/repo/git/diff/backdate";
import { discoverRepo, type RepoInfo } from "@knightcode/repo/git/repo";
import type { GitContext } from "@knightcode/repo/git/ops/context";
import type { NewEntry } from "@knightcode/store/session/format";
import { stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Logger } from "../host/log.js";

export interface TurnChangesHost {
  readonly threadId: string;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly log: Logger;
  /** Writes the turn's `turn_files` entry. */
  record(entry: Extract<NewEntry, { type: "turn_files" }>): void;
  /** At least one file changed: `turn/diff/updated` to subscribers. */
  changed(turnId: string, files: FileTotals[]): void;
}

interface Before {
  git: GitContext;
  tree: string;
}

/**
 * What each turn changed in the thread's git working tree. When a turn
 * starts, the working tree is snapshotted as a tree object, and every tool
 * call of the turn waits for that (`ready`), so no edit of the turn lands
 * before it; a file something else saved after the start while the
 * snapshot was taken is put back as it was (`backdateSnapshot`). Once the
 * run is over it is snapshotted again: the net totals between the two are
 * written as a `turn_files` entry and sent as `turn/diff/updated`, and the
 * thread's ref chains both trees to its earlier turns', so `git gc` keeps
 * every turn's diff while the thread lives. Outside git nothing is taken
 * and nothing is sent.
 */
export class TurnChanges {
  private pending: { turnId: string; before: Promise<Before | undefined> } | undefined;
  /** The last turn's second snapshot and entry, while they are being taken and written. */
  private finishing: Promise<void> | undefined;
  /** The working tree the thread's folder is in, once found. */
  private repo: RepoInfo | undefined;
  /** The newest turn this thread snapshotted since it loaded: the lastTurn scope needs no read of the transcript for it. */
  lastTrees: TurnTrees | undefined;

  constructor(private readonly host: TurnChangesHost) {}

  /** The turn started at `since` (file-clock ms; its start entry is written): the snapshot before it begins. */
  began(turnId: string, since: number): void {
    this.pending = { turnId, before: this.snapshotBefore(since) };
  }

  /** Resolves once the running turn's first snapshot is taken (or could not be): tool calls wait for it. */
  async ready(): Promise<void> {
    await this.pending?.before;
  }

  /** Resolves once the last turn's entry is written (or could not be): a lastTurn read after turn/completed sees that turn. */
  async written(): Promise<void> {
    await this.finishing;
  }

  /** The turn's run is over: the second snapshot, the entry and the notification. Never rejects. */
  settled(turnId: string): Promise<void> {
    const pending = this.pending;
    if (!pending || pending.turnId !== turnId) return Promise.resolve();
    this.pending = undefined;
    this.finishing = this.finish(turnId, pending.before);
    return this.finishing;
  }

  private async finish(turnId: string, snapshot: Promise<Before | undefined>): Promise<void> {
    const before = await snapshot;
    if (!before) return;
    try {
      const after = await snapshotTree(before.git);
      const files = await treeTotals(before.git, before.tree, after);
      await keepTurnTrees(before.git, this.host.threadId, { turnId, before: before.tree, after });
      this.host.record({ type: "turn_files", turnId, before: before.tree, after, files });
      this.lastTrees = { turnId, before: before.tree, after };
      if (files.length > 0) this.host.changed(turnId, files);
    } catch (error) {
      this.host.log.warn(`could not take the working tree snapshot after turn ${turnId}: ${(error as Error).message}`);
    }
  }

  /** The working tree as it stood at `since`, the turn's start: a file saved while the snapshot is taken belongs to the turn. */
  private async snapshotBefore(since: number): Promise<Before | undefined> {
    if (!(await underGitFolder(this.host.cwd))) return undefined;
    try {
      // A loaded thread's folder does not move: its repository is found once.
      this.repo ??= await discoverRepo(this.host.cwd, this.host.env);
      const git: GitContext = { repo: this.repo, env: this.host.env };
      return { git, tree: await backdateSnapshot(git, await snapshotTree(git), since, this.lastTrees?.after) };
    } catch (error) {
      if (error instanceof SnapshotTooLargeError) this.host.log.info(`turn changes are not tracked in ${this.host.cwd}: ${error.message}`);
      else if (!(error instanceof NotGitRepoError)) this.host.log.warn(`could not take the working tree snapshot before a turn: ${(error as Error).message}`);
      return undefined;
    }
  }
}

/**
 * Whether `.git` (a folder, or a worktree's file) exists in `cwd` or above:
 * a few stat calls that spare a thread outside any repository a git
 * process per turn. git itself decides the rest.
 */
async function underGitFolder(cwd: string): Promise<boolean> {
  for (let dir = cwd; ; dir = dirname(dir)) {
    try {
      await stat(join(dir, ".git"));
      return true;
    } catch {
      if (dirname(dir) === dir) return false;
    }
  }
}
