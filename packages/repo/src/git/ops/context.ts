import type { RepoInfo } from "../repo.js";
import { runGit, type GitOptions } from "../run.js";

/** The checkout an operation acts on, and what its commands run with. */
export interface GitContext {
  repo: RepoInfo;
  /** The environment git and its hooks get; the process's by default. */
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}

/** Options for a command run at the working tree's root. */
export function inRepo(ctx: GitContext, extra: Omit<GitOptions, "cwd" | "env" | "signal"> = {}): GitOptions {
  return { cwd: ctx.repo.root, ...(ctx.env ? { env: ctx.env } : {}), ...(ctx.signal ? { signal: ctx.signal } : {}), ...extra };
}

/**
 * Command-line configuration for the git operations other than a commit:
 * the user's hooks run for `git/commit` and nowhere else, so a push or a
 * branch change runs no pre-push or post-checkout hook.
 */
export const NO_HOOKS: readonly (readonly [string, string])[] = [["core.hooksPath", "/dev/null"]];

/** The branch HEAD is on (its short name, unborn or not), or null when HEAD is detached. */
export async function currentBranch(ctx: GitContext): Promise<string | null> {
  const result = await runGit(["symbolic-ref", "-q", "HEAD"], inRepo(ctx, { okCodes: [1] }));
  const ref = result.stdout.toString("utf8").trim();
  return result.code === 0 && ref.startsWith("refs/heads/") ? ref.slice("refs/heads/".length) : null;
}

/** The commit a revision names, or undefined when it names none (an unborn HEAD, a missing branch). */
export async function commitOf(ctx: GitContext, rev: string): Promise<string | undefined> {
  if (rev === "") return undefined;
  const result = await runGit(["rev-parse", "-q", "--verify", "--end-of-options", `${rev}^{commit}`], inRepo(ctx, { okCodes: [1, 128] }));
  const sha = result.stdout.toString("utf8").trim();
  return result.code === 0 && sha !== "" ? sha : undefined;
}

/** The id of the empty tree in this repository's hash (nothing is written). */
export async function emptyTree(ctx: GitContext): Promise<string> {
  return (await runGit(["hash-object", "-t", "tree", "--stdin"], inRepo(ctx, { input: "" }))).stdout.toString("utf8").trim();
}

/** The first line of a command's message that says something. */
export function firstLine(text: string): string {
  return (
    text
      .split("\n")
      .find((line) => line.trim() !== "")
      ?.trim() ?? "no message"
  );
}
