import { gitText, runGit } from "../run.js";
import { inRepo, commitOf, currentBranch, type GitContext } from "./context.js";

export interface LogBase {
  /** The commit the log starts after. */
  sha: string;
  /** What it was found from: the worktree's base, the upstream's name, or the default branch's. */
  from: string;
}

async function mergeBase(ctx: GitContext, a: string, b: string): Promise<string | undefined> {
  const result = await runGit(["merge-base", a, b], inRepo(ctx, { okCodes: [1] }));
  const sha = result.stdout.toString("utf8").trim();
  return result.code === 0 && sha !== "" ? sha : undefined;
}

/** The branches that may be the repository's default, full ref names: origin's HEAD, then main and master. */
async function defaultBranchRefs(ctx: GitContext): Promise<string[]> {
  const originHead = (await gitText(["symbolic-ref", "-q", "refs/remotes/origin/HEAD"], inRepo(ctx, { okCodes: [1, 128] }))).trim();
  return [...(originHead.startsWith("refs/") ? [originHead] : []), "refs/heads/main", "refs/heads/master"];
}

function shortRef(ref: string): string {
  return ref.replace(/^refs\/(heads|remotes)\//, "");
}

/**
 * Where a branch's own commits begin (the base of the `committed` scope
 * and of `git/log`): its merge base with `worktreeBase` when given (a
 * worktree's base commit), else with the upstream, else with the
 * repository's default branch (origin's HEAD, main, master) unless HEAD is
 * on that very branch. Undefined when none applies or HEAD has no commit.
 */
export async function resolveLogBase(ctx: GitContext, worktreeBase?: string): Promise<LogBase | undefined> {
  const head = await commitOf(ctx, "HEAD");
  if (head === undefined) return undefined;
  if (worktreeBase !== undefined) {
    const sha = await mergeBase(ctx, head, worktreeBase);
    if (sha) return { sha, from: "worktree base" };
  }
  const branch = await currentBranch(ctx);
  if (branch !== null) {
    const upstream = (await gitText(["for-each-ref", "--format=%(upstream)", `refs/heads/${branch}`], inRepo(ctx))).trim();
    const upstreamCommit = upstream === "" ? undefined : await commitOf(ctx, upstream);
    const sha = upstreamCommit && (await mergeBase(ctx, head, upstreamCommit));
    if (sha) return { sha, from: shortRef(upstream) };
  }
  for (const ref of await defaultBranchRefs(ctx)) {
    if (branch !== null && ref === `refs/heads/${branch}`) continue;
    const commit = await commitOf(ctx, ref);
    const sha = commit && (await mergeBase(ctx, head, commit));
    if (sha) return { sha, from: shortRef(ref) };
  }
  return undefined;
}

export interface LogCommit {
  sha: string;
  subject: string;
  author: string;
  /** The author's time, ISO 8601 in UTC. */
  time: string;
}

export const DEFAULT_LOG_LIMIT = 50;
export const MAX_LOG_LIMIT = 500;

/**
 * HEAD's commits after `base` (all of HEAD's history without one), newest
 * first, at most `limit`; `truncated` when more were left out.
 */
export async function readLog(ctx: GitContext, options: { base?: string; limit?: number } = {}): Promise<{ commits: LogCommit[]; truncated: boolean }> {
  const limit = Math.min(Math.max(1, options.limit ?? DEFAULT_LOG_LIMIT), MAX_LOG_LIMIT);
  const head = await commitOf(ctx, "HEAD");
  if (head === undefined) return { commits: [], truncated: false };
  const range = options.base === undefined ? head : `${options.base}..${head}`;
  const text = await gitText(
    ["log", "--no-show-signature", "--no-color", "-z", "--format=%H%x00%s%x00%an%x00%at", `--max-count=${limit + 1}`, range, "--"],
    inRepo(ctx),
  );
  const fields = text.split("\0");
  const commits: LogCommit[] = [];
  for (let i = 0; i + 3 < fields.length; i += 4) {
    const [sha, subject, author, seconds] = fields.slice(i, i + 4) as [string, string, string, string];
    commits.push({ sha: sha.replace(/^\n/, ""), subject, author, time: new Date(Number(seconds) * 1000).toISOString() });
  }
  return { commits: commits.slice(0, limit), truncated: commits.length > limit };
}
