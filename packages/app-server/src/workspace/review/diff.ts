import { commitOf } from "@knightcode/repo/git/ops/context";
import type { GitContext } from "@knightcode/repo/git/ops/context";
import { DiffInputError } from "@knightcode/repo/git/diff/errors";
import { ACTION_BUDGET, readDiff } from "@knightcode/repo/git/diff/read";
import type { FoundHunk } from "@knightcode/repo/git/diff/find";
import type { DiffAnswer } from "@knightcode/repo/git/diff/types";
import type { ReviewSource, SavedFinding } from "@knightcode/agent/tools/report-finding";
import type { LoadedThread } from "../../threads/loaded-thread.js";
import { lastTurnTrees, turnTreesOf, worktreeBaseOf } from "../diff-context.js";
import { savedFinding } from "./findings.js";

/** What review/start asks about its diff: thread/diff/read's fields, with `commit` as the scope's name. */
export interface ReviewRequest {
  scope: "uncommitted" | "branch" | "commit" | "lastTurn";
  against?: string;
  commit?: string;
  turnId?: string;
}

/** The fields of another scope are refused, as thread/diff/read refuses turnId outside lastTurn. */
function checkFields(request: ReviewRequest): void {
  const { scope } = request;
  if (request.against !== undefined && scope !== "branch") throw new DiffInputError("against goes with the branch scope only");
  if (request.commit !== undefined && scope !== "commit") throw new DiffInputError("commit goes with the commit scope only");
  if (scope === "commit" && request.commit === undefined) throw new DiffInputError("the commit scope needs commit");
  if (request.turnId !== undefined && scope !== "lastTurn") throw new DiffInputError("turnId goes with the lastTurn scope only");
}

/**
 * Reads the diff a review covers, at the default context, and says where
 * it came from in terms that read it again later: the base the branch
 * was compared with, the commit's full id, the turn.
 */
export async function readReviewDiff(thread: LoadedThread, git: GitContext, request: ReviewRequest): Promise<{ answer: DiffAnswer; source: ReviewSource }> {
  checkFields(request);
  const scope = request.scope === "commit" ? "committed" : request.scope;
  const commit = request.commit === undefined ? undefined : await commitOf(git, request.commit);
  if (request.commit !== undefined && commit === undefined) throw new DiffInputError(`commit ${request.commit} does not name a commit in this repository`);
  const lastTurn =
    scope !== "lastTurn" ? undefined : request.turnId === undefined ? await lastTurnTrees(thread) : await turnTreesOf(thread, git, request.turnId);
  const { answer } = await readDiff(git, {
    scope,
    ...(request.against !== undefined ? { against: request.against } : {}),
    ...(commit !== undefined ? { commit } : {}),
    ...(request.turnId !== undefined ? { turnId: request.turnId } : {}),
    ...(lastTurn ? { lastTurn } : {}),
    ...worktreeBaseOf(thread),
  });
  const source: ReviewSource = {
    scope,
    ...(answer.against !== undefined ? { against: answer.against } : {}),
    ...(commit !== undefined ? { commit } : {}),
    ...(answer.turnId !== undefined ? { turnId: answer.turnId } : {}),
    // A detached review's findings live in another thread than the turn: keep the trees to read that diff again.
    ...(lastTurn ? { trees: { before: lastTurn.before, after: lastTurn.after } } : {}),
  };
  return { answer, source };
}

/** The hunk ids of a source's diff as it reads now, for the scopes compared with the working tree (others do not move). */
export async function currentHunkIds(thread: LoadedThread, git: GitContext, source: ReviewSource): Promise<Set<string> | undefined> {
  if (source.scope !== "uncommitted" && source.scope !== "branch") return undefined;
  const { answer } = await readDiff(git, {
    scope: source.scope,
    ...(source.against !== undefined ? { against: source.against } : {}),
    ...worktreeBaseOf(thread),
  });
  return new Set(answer.files.flatMap((file) => file.hunks.map((hunk) => hunk.id)));
}

/**
 * A hunk a review's finding is on, found in the diff that review read
 * (its branch base, its commit, its turn), where the thread's current
 * diffs may not show it: a finding sent back as a review comment finds
 * its hunk here.
 */
export async function reviewedHunk(
  thread: LoadedThread,
  git: GitContext,
  hunkId: string,
  elsewhere?: (hunkId: string) => Promise<SavedFinding | undefined>,
): Promise<FoundHunk | undefined> {
  const finding = (await savedFinding(thread, (candidate) => candidate.hunkId === hunkId)) ?? (await elsewhere?.(hunkId));
  if (!finding) return undefined;
  const { trees, ...source } = finding.source;
  let answer: DiffAnswer;
  try {
    const lastTurn =
      source.scope !== "lastTurn" || source.turnId === undefined
        ? undefined
        : trees
          ? { turnId: source.turnId, ...trees }
          : await turnTreesOf(thread, git, source.turnId);
    ({ answer } = await readDiff(git, { ...source, ...(lastTurn ? { lastTurn } : {}), ...worktreeBaseOf(thread) }, { budget: ACTION_BUDGET }));
  } catch (error) {
    if (error instanceof DiffInputError) return undefined;
    throw error;
  }
  for (const file of answer.files) {
    const hunk = file.hunks.find((candidate) => candidate.id === hunkId);
    if (hunk) return { scope: source.scope, file, hunk };
  }
  return undefined;
}
