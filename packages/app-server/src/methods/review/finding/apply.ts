import { diffChanged } from "@knightcode/repo/git/diff/apply";
import { applySuggestion } from "@knightcode/repo/git/diff/suggestion";
import { exclusiveInCheckout } from "../../../git/checkout.js";
import { rpcError } from "../../../rpc/errors.js";
import type { Handler } from "../../../rpc/handler.js";
import { threadGit, withDiffErrors } from "../../../workspace/diff-context.js";
import { currentHunkIds } from "../../../workspace/review/diff.js";
import { savedFinding } from "../../../workspace/review/findings.js";

/**
 * review/finding/apply (beyond the spec): with every thread of the
 * checkout held, as a revert holds them, a finding's suggestion replaces
 * its lines, once its hunk (for the scopes compared with the working tree)
 * and its lines are found as the review read them.
 */
export const handler: Handler<"review/finding/apply"> = async (params, ctx) => {
  const threads = await ctx.services.threads();
  return threads.using(params.threadId, async (thread) => {
    const finding = await savedFinding(thread, (candidate) => candidate.findingId === params.findingId);
    if (!finding) throw rpcError("invalidParams", `finding ${params.findingId} is not a finding of thread ${thread.id}`);
    const text = finding.suggestion;
    if (text === undefined) throw rpcError("invalidParams", `finding ${params.findingId} has no suggestion to apply`);
    return withDiffErrors(async () => {
      const git = await threadGit(thread, ctx.context.env);
      return exclusiveInCheckout(threads.loadedThreads(), git.repo.root, async () => {
        const hunks = await currentHunkIds(thread, git, finding.source);
        if (hunks && !hunks.has(finding.hunkId))
          throw diffChanged(`hunk ${finding.hunkId} is not in the ${finding.source.scope} diff any more`, [finding.path]);
        const { path, startLine, endLine, lines } = finding;
        return applySuggestion(git, { path, startLine, endLine, lines, text, ...(finding.noNewlineAtEnd ? { noNewlineAtEnd: true } : {}) });
      });
    });
  });
};
