import { signal, type Signal } from "@preact/signals";
import { AppServerError } from "@knightcode/app-server-client/browser";
import type { ClientRequestParams, ClientRequestResult, DiffFile, DiffScope, ReviewCommentInput, ThreadDiffReadResult } from "@knightcode/app-server-protocol";
import type { Connection } from "../../connection/connection.js";

/**
 * The workspace model: the owner of what the changes and git panels ask
 * and change in a thread's checkout (diffs, staging, reverts, commits,
 * pushes, branches, worktrees), the review comments waiting to be sent,
 * and the environment scripts' output. The panels are views over it: they
 * hold what they show and whether they are busy, and call its actions. It
 * reaches the server only through the connection it is given, so a test
 * hands it a client over the in-memory transport.
 */

/** What the model needs of a connection: the page's `Connection`, or a test's in-process client. */
export type WorkspaceConnection = Pick<Connection, "request" | "on">;

export interface WorkspaceDeps {
  /** Asked at each use: the page's connection is set after the model is made. */
  conn: () => WorkspaceConnection;
  /** Resolves once a reload of the thread after thread/replaced, if one is under way, was taken (see the composer's). */
  reloaded?: (threadId: string) => Promise<void>;
}

export interface DiffQuery {
  scope: DiffScope;
  commit?: string;
  against?: string;
  /** lastTurn: an earlier turn of the thread, by its id, rather than the last one. */
  turnId?: string;
}

/** An environment script's output in a thread's worktree, as far as it came. */
export interface ScriptLog {
  phase: "setup" | "cleanup";
  output: string;
  done: boolean;
  exitCode?: number | null;
}

/** A message for the commit box, and why it is only the plain one when the model could not write it. */
export interface CommitDraft {
  message: string;
  note?: string;
}

type Params<M extends Parameters<WorkspaceConnection["request"]>[0]> = Omit<ClientRequestParams<M>, "threadId">;
type Result<M extends Parameters<WorkspaceConnection["request"]>[0]> = Promise<ClientRequestResult<M>>;

export interface WorkspaceModel {
  /** The thread's diff for a query; undefined when the query names no commit to show yet. */
  readDiff(threadId: string, query: DiffQuery): Promise<ThreadDiffReadResult | undefined>;
  readGit(threadId: string): Promise<{ status: ClientRequestResult<"git/status">; branches: ClientRequestResult<"git/branches"> }>;
  log(threadId: string, limit: number): Result<"git/log">;
  /** Runs `run` whenever a turn of the thread changed its files; returns the undo. */
  onFilesChanged(threadId: string, run: () => void): () => void;
  stage(threadId: string, target: Params<"git/stage">): Result<"git/stage">;
  unstage(threadId: string, target: Params<"git/unstage">): Result<"git/unstage">;
  revert(threadId: string, params: Params<"thread/diff/revert">): Result<"thread/diff/revert">;
  /** The message the thread's model would write, nothing committed; the plain draft from the files, with a note, when no model can. */
  draftCommit(threadId: string, includeUnstaged: boolean): Promise<CommitDraft>;
  commit(threadId: string, message: string, includeUnstaged: boolean): Result<"git/commit">;
  push(threadId: string, remote?: string): Result<"git/push">;
  createPullRequest(threadId: string, params: Params<"git/pr/create">): Result<"git/pr/create">;
  switchBranch(threadId: string, name: string): Result<"git/branch/switch">;
  createBranch(threadId: string, name: string): Result<"git/branch/create">;
  listWorktrees(cwd: string): Result<"worktree/list">;
  environments(cwd: string): Result<"environment/list">;
  handoff(threadId: string, params: Params<"thread/handoff">): Result<"thread/handoff">;
  deleteWorktree(path: string): Result<"worktree/delete">;
  /** Rebuilds an archived or deleted worktree thread's worktree, unarchiving the thread first when it is archived. */
  restoreWorktree(threadId: string): Promise<void>;
  /** The thread's unsent review comments. */
  comments(threadId: string): Signal<ReviewCommentInput[]>;
  addComment(threadId: string, comment: ReviewCommentInput): void;
  removeComment(threadId: string, index: number): void;
  /** Hands the comments to the next turn and forgets them; `restoreComments` puts them back when that turn is refused. */
  takeComments(threadId: string): ReviewCommentInput[];
  restoreComments(threadId: string, comments: ReviewCommentInput[]): void;
  /** Sends the unsent comments now: a turn when the thread is idle, a queued input while one runs; back in the list when refused. */
  sendComments(threadId: string, busy: boolean, text: string): Promise<number>;
  /** The environment script output of a thread's worktree. */
  scriptLog(threadId: string): Signal<ScriptLog | undefined>;
  /** Collects `thread/workspace/progress` for every thread; idempotent; returns the undo. */
  watchProgress(): () => void;
}

/** The server bounds a script's output to 1 MiB; the page keeps the newest part of that. */
export const KEEP_SCRIPT_CHARS = 200_000;

export function createWorkspaceModel(deps: WorkspaceDeps): WorkspaceModel {
  const pending = new Map<string, Signal<ReviewCommentInput[]>>();
  const logs = new Map<string, Signal<ScriptLog | undefined>>();
  let stopProgress: (() => void) | undefined;
  const c = () => deps.conn();

  function comments(threadId: string): Signal<ReviewCommentInput[]> {
    let entry = pending.get(threadId);
    if (!entry) pending.set(threadId, (entry = signal([])));
    return entry;
  }
  function takeComments(threadId: string): ReviewCommentInput[] {
    const entry = comments(threadId);
    const taken = entry.value;
    entry.value = [];
    return taken;
  }
  function restoreComments(threadId: string, list: ReviewCommentInput[]): void {
    const entry = comments(threadId);
    entry.value = [...list, ...entry.value];
  }
  function scriptLog(threadId: string): Signal<ScriptLog | undefined> {
    let entry = logs.get(threadId);
    if (!entry) logs.set(threadId, (entry = signal(undefined)));
    return entry;
  }

  return {
    async readDiff(threadId, { scope, commit, against, turnId }) {
      if (scope === "committed" && !commit) return undefined;
      return c().request("thread/diff/read", {
        threadId,
        scope,
        ...(scope === "committed" && commit ? { commit } : {}),
        ...(scope === "branch" && against ? { against } : {}),
        ...(scope === "lastTurn" && turnId ? { turnId } : {}),
      });
    },
    async readGit(threadId) {
      const [status, branches] = await Promise.all([c().request("git/status", { threadId }), c().request("git/branches", { threadId })]);
      return { status, branches };
    },
    log: (threadId, limit) => c().request("git/log", { threadId, limit }),
    onFilesChanged: (threadId, run) =>
      c().on("turn/diff/updated", (params) => {
        if (params.threadId === threadId) run();
      }),
    stage: (threadId, target) => c().request("git/stage", { threadId, ...target }),
    unstage: (threadId, target) => c().request("git/unstage", { threadId, ...target }),
    revert: (threadId, params) => c().request("thread/diff/revert", { threadId, ...params }),
    async draftCommit(threadId, includeUnstaged) {
      try {
        return await c().request("git/commit/message", { threadId, includeUnstaged });
      } catch (error) {
        if (!modelFailed(error)) throw error;
        const diff = await c().request("thread/diff/read", { threadId, scope: includeUnstaged ? "uncommitted" : "staged", context: 0 });
        return { message: draftMessage(diff.files), note: `The model could not write a message (${whyNoModel(error)}): this draft only lists the files.` };
      }
    },
    commit: (threadId, message, includeUnstaged) => c().request("git/commit", { threadId, message, includeUnstaged }),
    push: (threadId, remote) => c().request("git/push", { threadId, ...(remote ? { remote } : {}) }),
    createPullRequest: (threadId, params) => c().request("git/pr/create", { threadId, ...params }),
    switchBranch: (threadId, name) => c().request("git/branch/switch", { threadId, name }),
    createBranch: (threadId, name) => c().request("git/branch/create", { threadId, name }),
    listWorktrees: (cwd) => c().request("worktree/list", { cwd }),
    environments: (cwd) => c().request("environment/list", { cwd }),
    handoff: (threadId, params) => c().request("thread/handoff", { threadId, ...params }),
    deleteWorktree: (path) => c().request("worktree/delete", { path }),
    async restoreWorktree(threadId) {
      try {
        await c().request("thread/worktree/restore", { threadId });
      } catch (error) {
        if (reasonOf(error) !== "archived") throw error;
        await c().request("thread/unarchive", { threadId });
        await c().request("thread/worktree/restore", { threadId });
      }
    },
    comments,
    addComment(threadId, comment) {
      const entry = comments(threadId);
      entry.value = [...entry.value, comment];
    },
    removeComment(threadId, index) {
      const entry = comments(threadId);
      entry.value = entry.value.filter((_, i) => i !== index);
    },
    takeComments,
    restoreComments,
    async sendComments(threadId, busy, text) {
      const taken = takeComments(threadId);
      try {
        if (busy) await c().request("turn/queue/add", { threadId, text, comments: taken });
        else {
          await deps.reloaded?.(threadId);
          await c().request("turn/start", { threadId, text, comments: taken });
        }
        return taken.length;
      } catch (error) {
        restoreComments(threadId, taken);
        throw error;
      }
    },
    scriptLog,
    watchProgress() {
      stopProgress ??= c().on("thread/workspace/progress", ({ threadId, phase, output, done, exitCode }) => {
        const entry = scriptLog(threadId);
        const before = entry.value?.phase === phase && !entry.value.done ? entry.value.output : "";
        entry.value = { phase, output: (before + output).slice(-KEEP_SCRIPT_CHARS), done: done ?? false, ...(done ? { exitCode: exitCode ?? null } : {}) };
      });
      return () => {
        stopProgress?.();
        stopProgress = undefined;
      };
    },
  };
}

/** The `data.reason` of a server error, if it has one. */
export function reasonOf(error: unknown): string | undefined {
  const reason = error instanceof AppServerError ? (error.data as { reason?: unknown } | undefined)?.reason : undefined;
  return typeof reason === "string" ? reason : undefined;
}

/** Whether git/commit/message failed for want of a model, not because of the repository. */
function modelFailed(error: unknown): boolean {
  if (!(error instanceof AppServerError)) return true;
  if (error.code === "invalidParams") return reasonOf(error) !== undefined;
  return !["gitConflict", "notGitRepo", "threadNotFound"].includes(error.code);
}

/** The reason a model could not write the message, in a few words. */
function whyNoModel(error: unknown): string {
  if (error instanceof AppServerError && error.code === "authRequired") return "its provider has no key";
  if (error instanceof AppServerError && error.code === "invalidParams") return "no usable model is chosen";
  const text = error instanceof Error ? error.message : String(error);
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

const VERBS: Record<DiffFile["status"], string> = { added: "Add", deleted: "Remove", modified: "Update", renamed: "Rename" };

/** A first message from the change itself: a subject naming the files, and a line per file with its counts. */
export function draftMessage(files: DiffFile[]): string {
  if (files.length === 0) return "";
  const verbs = new Set(files.map((f) => VERBS[f.status]));
  const verb = verbs.size === 1 ? [...verbs][0]! : "Change";
  const names = files.map((f) => f.path.split("/").pop() ?? f.path);
  const subject =
    files.length === 1
      ? `${verb} ${names[0]}`
      : files.length === 2
        ? `${verb} ${names[0]} and ${names[1]}`
        : `${verb} ${names[0]} and ${files.length - 1} more files`;
  if (files.length === 1) return subject;
  return `${subject}\n\n${files.map((f) => `- ${f.path} (+${f.additions} -${f.deletions})`).join("\n")}`;
}
