import { rewindWorkingTree, type RewoundFile } from "@knightcode/repo/git/diff/rewind";
import { turnTreesKept, type TurnTrees } from "@knightcode/repo/git/diff/snapshot";
import { workspaceEntry } from "@knightcode/repo/worktrees/workspace";
import type { BranchSummary } from "@knightcode/store/session/summary";
import type { ClientRequestParams, ClientRequestResult } from "@knightcode/app-server-protocol";
import { rpcError, turnIdData } from "../rpc/errors.js";
import { exclusiveInCheckout } from "../git/checkout.js";
import type { LoadedThread } from "../threads/loaded-thread.js";
import type { ThreadManager } from "../threads/manager.js";
import { derivedName } from "../threads/thread-object.js";
import { threadGit, withDiffErrors } from "./diff-context.js";
import { turnPoint, undoneTrees, type TurnPoint } from "./turn-point.js";

type Params = ClientRequestParams<"thread/rewind">;
type Result = ClientRequestResult<"thread/rewind">;

/**
 * thread/rewind: the thread goes back to just before one of its turns.
 * Everything that can refuse it (a running turn, an unknown turn, a folder
 * outside git, a turn without snapshots, files edited since) does so
 * before anything changes. The code goes back first, with every thread of
 * the checkout held; then the conversation branches again and the thread
 * reloads from it, as a handoff does (thread/replaced, same id), so its
 * model, its context and everything read from the branch follow it.
 */
export async function rewindThread(threads: ThreadManager, params: Params, env: NodeJS.ProcessEnv): Promise<Result> {
  return withDiffErrors(async () => {
    const thread = await threads.load(params.threadId);
    if (thread.isRunning)
      throw rpcError("turnInProgress", `thread ${thread.id} is running; interrupt it before rewinding`, turnIdData(thread.turns.runningTurnId));
    // A turn that just completed is on the branch once its snapshot is written.
    await thread.changes.written();
    await thread.file.loadBranch();
    const point = turnPoint(thread.file.branch(), params.turnId);
    if (!point) throw rpcError("invalidParams", `params.turnId: ${params.turnId} is not a turn of thread ${thread.id}'s branch`);
    const code = params.mode === "conversation" ? undefined : await codeRewind(thread, point, params, env);
    if (params.mode === "code" && code) {
      const files = await exclusiveInCheckout(threads.loadedThreads(), code.root, code.run);
      thread.send("thread/rewound", { threadId: thread.id, turnId: params.turnId, mode: params.mode, files });
      return { files };
    }
    const { thread: fresh, result } = await threads.relocate(thread, async () => {
      const files = code ? await exclusiveInCheckout(threads.loadedThreads(), code.root, code.run, thread) : [];
      return { files, previousLeafId: branchAgain(thread, point, params.turnId) };
    });
    fresh.send("thread/rewound", { threadId: fresh.id, turnId: params.turnId, mode: params.mode, ...result });
    return result;
  });
}

/** The code half, checked before anything changes: the thread's repository and the turns' snapshots, still kept. */
async function codeRewind(
  thread: LoadedThread,
  point: TurnPoint,
  params: Params,
  env: NodeJS.ProcessEnv,
): Promise<{ root: string; run: () => Promise<RewoundFile[]> }> {
  const git = await threadGit(thread, env);
  const trees = undoneTrees(point, params.turnId);
  if (typeof trees === "string") throw rpcError("invalidParams", `params.turnId: ${trees}`);
  const ends: TurnTrees = { turnId: params.turnId, before: trees[0]!.before, after: trees.at(-1)!.after };
  if (!(await turnTreesKept(git, ends))) throw rpcError("invalidParams", `params.turnId: that turn's snapshot is no longer kept: git collected it`);
  return { root: git.repo.root, run: () => rewindWorkingTree(git, { turns: trees, ...(params.force ? { force: true } : {}) }) };
}

/**
 * Starts the branch again at the entry before the turn: a `rewind` entry
 * there names the leaf left behind, which stays in the transcript. What
 * is not conversation stays as it was: the thread's name (the listing's
 * title, which a new branch would otherwise disagree with) and where it
 * runs are written again when the new branch would say otherwise.
 */
function branchAgain(thread: LoadedThread, point: TurnPoint, turnId: string): string {
  const { file } = thread;
  const session = thread.runtime.session;
  const fromLeafId = file.leafId;
  if (fromLeafId === null) throw rpcError("invalidParams", `thread ${thread.id} has no history to rewind`);
  const before = file.summary();
  file.setLeaf(point.parentId);
  session.appendSafely({ type: "rewind", turnId, fromLeafId }, true);
  const after = file.summary();
  if (nameOf(after) !== nameOf(before)) session.appendSafely({ type: "thread_name", name: nameOf(before) });
  if (before.workspace && JSON.stringify(after.workspace) !== JSON.stringify(before.workspace)) session.appendSafely(workspaceEntry(before.workspace), true);
  if (thread.failureMessage !== undefined) throw rpcError("internal", `the rewind could not be recorded: ${thread.failureMessage}`);
  return fromLeafId;
}

const nameOf = (summary: BranchSummary): string => summary.name ?? derivedName(summary.firstUserText);
