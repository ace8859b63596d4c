import { randomUUID } from "node:crypto";
import type { AgentTool } from "@mariozechner/pi-agent-core";
import type { SavedFinding } from "@knightcode/agent/tools/report-finding";
import { readSession } from "@knightcode/store/session/read";
import { rpcError } from "../rpc/errors.js";
import { findingIn } from "../turns/finding-item.js";
import type { LoadedThread } from "./loaded-thread.js";
import type { ThreadManager } from "./manager.js";

/** A detached review's child names it in its header's parentCallId, as an extension's sub-agent names `extension-…`. */
const REVIEW_CALL = "review-";

/** The longest name a review child takes from the focus. */
const NAME_FOCUS_CHARS = 60;

/**
 * review/start with delivery "detached": a new child thread of `parent`,
 * made as a sub-agent is (the parent's folder or worktree, model, thinking
 * level, approval and plan modes), whose first turn is the review. It is
 * the parent's child from then on: nested under it in listings, heard by
 * its opted-in subscribers, unloaded and archived with it.
 */
export async function startReviewChild(
  threads: ThreadManager,
  parent: LoadedThread,
  turn: { text: string; tools: AgentTool[]; scope: string; focus?: string },
): Promise<{ thread: LoadedThread; turnId: string }> {
  const choice = await threads.subagents.modelChoice(parent, {});
  const workspace = parent.place.mode === "worktree" ? parent.place : undefined;
  const thread = await threads.create(
    parent.file.header.cwd,
    async (created) => {
      await created.runtime.choose(choice);
      created.setApprovalMode(parent.approvalMode);
      if (parent.planMode) created.setPlanMode(true);
      created.setName(reviewName(turn.scope, turn.focus));
    },
    { parent: { threadId: parent.id, callId: `${REVIEW_CALL}${randomUUID()}` }, ...(workspace ? { workspace } : {}) },
  );
  const turnId = await threads.subagents.adopt(thread, parent.id, async () => {
    const outcome = await thread.turns.start({ text: turn.text, images: [], tools: turn.tools });
    if (outcome.status !== "started") throw rpcError("invalidParams", "an extension took the review's message: no review turn runs");
    return outcome.turnId;
  });
  return { thread, turnId };
}

/** A review thread's name: its scope, and the focus's first line when there is one. */
export function reviewName(scope: string, focus: string | undefined): string {
  return focus === undefined ? `Review (${scope})` : `Review (${scope}): ${focus.split("\n")[0]!.slice(0, NAME_FOCUS_CHARS)}`;
}

/**
 * The newest finding on `hunkId` among the detached reviews of `parentId`,
 * read from their transcripts without loading them: a comment on the
 * parent's next turn finds the hunk a child's review read.
 */
export async function detachedFinding(threads: ThreadManager, parentId: string, hunkId: string): Promise<SavedFinding | undefined> {
  const { listing, locator } = threads.catalog;
  let cursor: string | undefined;
  do {
    const page = await listing.list({ folders: locator.sessionRoots(), parentThreadId: parentId, limit: 200, ...(cursor ? { cursor } : {}) });
    for (const child of page.threads) {
      if (!child.parentCallId?.startsWith(REVIEW_CALL)) continue;
      const { entries } = await readSession(child.path).catch(() => ({ entries: [] }));
      const found = findingIn(entries, (finding) => finding.hunkId === hunkId);
      if (found) return found;
    }
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return undefined;
}
