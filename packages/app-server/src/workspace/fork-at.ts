import { readSession, readSessionHeader } from "@knightcode/store/session/read";
import type { WorkspaceState } from "@knightcode/store/session/format";
import type { ClientRequestParams, ClientRequestResult } from "@knightcode/app-server-protocol";
import type { Connection } from "../rpc/connection.js";
import { rpcError } from "../rpc/errors.js";
import { threadCreated } from "../threads/created.js";
import type { LoadedThread } from "../threads/loaded-thread.js";
import type { ThreadManager } from "../threads/manager.js";
import { turnPoint, type TurnPoint } from "./turn-point.js";
import { startPlace } from "./worktree-start.js";

type Params = ClientRequestParams<"thread/fork">;

/**
 * thread/fork with a turn or a workspace (beyond the spec): the new
 * thread's history stops just before the turn, and it runs where
 * `workspace` says; a new worktree's files are as that turn found them
 * (its before-snapshot), else as thread/start would make them. What can
 * refuse it does before anything is made; a fork that fails after its
 * worktree was made removes it.
 */
export async function forkAt(threads: ThreadManager, params: Params, connection: Connection): Promise<ClientRequestResult<"thread/fork">> {
  const source = threads.get(params.threadId);
  const path = source?.file.path ?? threads.find(params.threadId)?.path;
  if (!path) throw rpcError("threadNotFound", `no saved thread ${params.threadId}`);
  const projectCwd = source?.file.header.cwd ?? (await readSessionHeader(path)).cwd;
  const point = params.turnId === undefined ? undefined : await pointOf(source, path, params.turnId);
  const worktree = params.workspace?.mode === "worktree" ? params.workspace : undefined;
  const files = worktree && point ? point.turns[0]?.trees?.before : undefined;
  if (worktree && point && files === undefined) {
    throw rpcError("invalidParams", `params.turnId: turn ${params.turnId} has no snapshot of the working tree, so no worktree can hold its files`);
  }
  if (files !== undefined && worktree?.carryLocalChanges) {
    throw rpcError("invalidParams", "params.workspace.carryLocalChanges: a fork at a turn takes that turn's files, not the checkout's changes");
  }
  const place = await startPlace({ ...(params.workspace ? { workspace: params.workspace } : {}) }, projectCwd, threads, files);
  const workspace: WorkspaceState | undefined = place.workspace ?? (params.workspace ? { mode: "local", cwd: projectCwd } : undefined);
  let thread: LoadedThread;
  try {
    thread = await threads.fork(params.threadId, { ...(point ? { upToEntryId: point.parentId } : {}), ...(workspace ? { workspace } : {}) });
  } catch (error) {
    await place.abandon().catch((cleanup: unknown) => threads.context.log.error("removing the worktree of a fork that failed", cleanup));
    throw error;
  }
  thread.subscribe(connection);
  place.started(thread, connection);
  const created = threadCreated(thread);
  return { ...created, warnings: [...created.warnings, ...place.warnings] };
}

/** The turn on the source's branch: from memory when the source is loaded here, else read from its transcript. */
async function pointOf(source: LoadedThread | undefined, path: string, turnId: string): Promise<TurnPoint> {
  if (source) {
    await source.changes.written();
    await source.file.loadBranch();
  }
  const branch = source ? source.file.branch() : (await readSession(path)).entries;
  const point = turnPoint(branch, turnId);
  if (!point) throw rpcError("invalidParams", `params.turnId: ${turnId} is not a turn of the thread's branch`);
  return point;
}
