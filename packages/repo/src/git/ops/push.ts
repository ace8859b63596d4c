import { GitAuthError, GitCommandError, GitConflictError } from "../errors.js";
import { gitText, runGit } from "../run.js";
import { inRepo, commitOf, currentBranch, firstLine, NO_HOOKS, type GitContext } from "./context.js";
import { GitRequestError } from "./errors.js";
import { LOCAL_RECEIVE_PACK, localPushTarget, type LocalPushTarget } from "./local-remote.js";

export interface PushResult {
  remote: string;
  /** The local branch pushed. */
  branch: string;
  /** Where it went, as `<remote>/<branch>`. */
  pushedTo: string;
  /** This push made it the branch's upstream (the branch had none). */
  upstreamSet: boolean;
}

export interface PushOptions {
  /** The remote to push to; the upstream's remote, else `origin`, by default. */
  remote?: string;
  /**
   * Asked before a push into a repository on this machine; true pushes.
   * Without it such a push is refused.
   */
  confirmLocal?(target: LocalPushTarget, branch: string): Promise<boolean>;
}

/** What a remote or ssh says when it wants credentials it was not given (prompts are off). */
const AUTH_FAILURES = [
  /Authentication failed/i,
  /could not read (Username|Password)/i,
  /Permission denied \(publickey/i,
  /terminal prompts disabled/i,
  /HTTP Basic: Access denied/i,
];

export function isAuthFailure(output: string): boolean {
  return AUTH_FAILURES.some((pattern) => pattern.test(output));
}

/** The branch's configured upstream: its remote and the branch there; undefined when none (or a local one). */
export async function upstreamOf(ctx: GitContext, branch: string): Promise<{ remote: string; branch: string } | undefined> {
  const get = async (key: string) => (await gitText(["config", "--get", key], inRepo(ctx, { okCodes: [1] }))).trim();
  const remote = await get(`branch.${branch}.remote`);
  const merge = await get(`branch.${branch}.merge`);
  if (remote === "" || remote === "." || !merge.startsWith("refs/heads/")) return undefined;
  return { remote, branch: merge.slice("refs/heads/".length) };
}

async function remotes(ctx: GitContext): Promise<string[]> {
  return (await gitText(["remote"], inRepo(ctx))).split("\n").filter((name) => name !== "");
}

/**
 * Pushes the current branch with one explicit refspec that never forces,
 * `refs/heads/<branch>:refs/heads/<upstream's branch>`, to `remote`, else
 * the upstream's remote, else `origin`. A branch without an upstream gets
 * this one as its upstream. No tag or submodule goes along, whatever the
 * configuration says; no hook runs on this side. A push into a repository
 * on this machine (a path or `file://` URL) is asked about first, and runs
 * no hook or configured command of the receiving repository either. A
 * refusal (not a fast forward, the remote's rules) is `gitConflict`
 * `pushRejected`; a remote that wants credentials is a GitAuthError.
 */
export async function pushBranch(ctx: GitContext, options: PushOptions = {}): Promise<PushResult> {
  const { remote } = options;
  const branch = await currentBranch(ctx);
  if (branch === null) throw new GitRequestError("HEAD is detached: create a branch here first (git/branch/create), then push it");
  if ((await commitOf(ctx, "HEAD")) === undefined) throw new GitRequestError(`branch ${branch} has no commit to push yet`);
  const upstream = await upstreamOf(ctx, branch);
  const target = remote ?? upstream?.remote ?? "origin";
  if (!(await remotes(ctx)).includes(target)) {
    throw new GitRequestError(
      remote !== undefined
        ? `there is no remote named ${remote}`
        : `branch ${branch} has no upstream and there is no remote named origin: name the remote to push to`,
    );
  }
  const remoteBranch = upstream?.remote === target ? upstream.branch : branch;
  const upstreamSet = upstream === undefined;
  const local = await confirmedLocal(ctx, target, branch, options);
  const args = [
    "push",
    "--porcelain",
    "--no-follow-tags",
    "--recurse-submodules=no",
    ...(local ? [`--receive-pack=${LOCAL_RECEIVE_PACK}`] : []),
    ...(upstreamSet ? ["--set-upstream"] : []),
    target,
    `refs/heads/${branch}:refs/heads/${remoteBranch}`,
  ];
  const result = await runGit(args, inRepo(ctx, { readOnly: false, okCodes: [1, 128], config: NO_HOOKS }));
  const output = `${result.stdout.toString("utf8")}${result.stderr}`.trim();
  if (result.code !== 0) {
    if (isAuthFailure(result.stderr)) throw new GitAuthError(`${target} asked for credentials: ${firstLine(result.stderr)}`);
    const rejected = result.stdout
      .toString("utf8")
      .split("\n")
      .some((line) => line.startsWith("!"));
    if (rejected) {
      throw new GitConflictError("pushRejected", `${target} refused the push of ${branch}`, {
        output,
        recoveryInstructions: `Bring ${target}/${remoteBranch}'s new commits into ${branch} (pull or rebase), then push again.`,
      });
    }
    throw new GitCommandError(args, result.code, output);
  }
  return { remote: target, branch, pushedTo: `${target}/${remoteBranch}`, upstreamSet };
}

/** Whether the push lands on this machine, once the user said yes to it; a no, or nobody to ask, refuses it. */
async function confirmedLocal(ctx: GitContext, remote: string, branch: string, options: PushOptions): Promise<boolean> {
  const local = await localPushTarget(ctx, remote);
  if (local === undefined) return false;
  if (local === "mixed") throw new GitRequestError(`${remote} pushes both to folders on this machine and over the network; push to it from a terminal`);
  if (!(await options.confirmLocal?.(local, branch))) {
    throw new GitRequestError(`the push of ${branch} to ${local.paths.join(", ")}, a folder on this machine, was not confirmed`, "notConfirmed");
  }
  return true;
}
