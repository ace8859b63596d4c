import { createReportFindingTool } from "@knightcode/agent/tools/report-finding";
import { reviewName, startReviewChild } from "../../threads/review-child.js";
import { rpcError, turnIdData } from "../../rpc/errors.js";
import type { Handler } from "../../rpc/handler.js";
import { threadGit, withDiffErrors } from "../../workspace/diff-context.js";
import { readReviewDiff } from "../../workspace/review/diff.js";
import { findingRecorder } from "../../workspace/review/findings.js";
import { reviewPrompt } from "../../workspace/review/prompt.js";

/**
 * review/start (beyond the spec): reads the scope's diff, then starts a
 * turn in the thread whose user message is the review's instructions, the
 * focus and that diff with hunk ids, and whose model may call
 * report_finding, checked against the hunks it was shown. Detached, the
 * turn runs in a new child thread of the thread instead (the diff is still
 * the thread's).
 */
export const handler: Handler<"review/start"> = async (params, ctx) => {
  const threads = await ctx.services.threads();
  const thread = threads.require(params.threadId);
  await thread.turns.finishReported();
  if (thread.isRunning) throw rpcError("turnInProgress", "a turn is running: review once it ends", turnIdData(thread.turns.runningTurnId));
  const { scope, against, commit, turnId } = params;
  const read = await withDiffErrors(async () => {
    const git = await threadGit(thread, ctx.context.env, ctx.signal);
    return {
      git,
      ...(await readReviewDiff(thread, git, { scope, ...(against ? { against } : {}), ...(commit ? { commit } : {}), ...(turnId ? { turnId } : {}) })),
    };
  });
  if (read.answer.files.length === 0) throw rpcError("invalidParams", `nothing to review: the ${scope} diff is empty`);
  const prompt = reviewPrompt(read.answer, {
    ...(params.focus !== undefined ? { focus: params.focus } : {}),
    ...(read.source.commit ? { commit: read.source.commit } : {}),
  });
  const tool = createReportFindingTool(findingRecorder(prompt.shown, read.source, read.git.repo.root));
  if (params.delivery === "detached") {
    const { scope: shown, focus } = params;
    const child = await startReviewChild(threads, thread, { text: prompt.text, tools: [tool], scope: shown, ...(focus !== undefined ? { focus } : {}) });
    const startedAt = child.thread.runningTurn()?.startedAt ?? Date.now();
    return { turn: { id: child.turnId, status: "inProgress", startedAt }, threadId: child.thread.id };
  }
  // A thread whose first message is the review is named after it, not after the review's instructions.
  const summary = thread.file.summary();
  if (summary.name === undefined && summary.firstUserText === undefined) thread.setName(reviewName(params.scope, params.focus));
  const outcome = await thread.startTurn({ text: prompt.text, images: [], tools: [tool] }, ctx.connection);
  if (outcome.status !== "started") throw rpcError("invalidParams", "an extension took the review's message: no review turn runs");
  const startedAt = thread.runningTurn()?.startedAt ?? Date.now();
  return { turn: { id: outcome.turnId, status: "inProgress", startedAt }, threadId: thread.id };
};
