import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { changedPaths } from "@knightcode/repo/git/changes";
import { commitOf } from "@knightcode/repo/git/ops/context";
import { discoverRepo, type RepoInfo } from "@knightcode/repo/git/repo";
import { isWithin, realTarget } from "@knightcode/system/fs/real-target";
import { runGit } from "@knightcode/repo/git/run";
import { settingsCodePaths, trustedProjectsAbove, type CodePathOptions } from "@knightcode/agent/resources/code-paths";
import type { StoredWorktree } from "@knightcode/repo/worktrees/record";
import { confirmForRequest } from "../ui/request-confirm.js";
import { controlReason } from "../approvals/control-paths.js";
import { rpcError } from "../rpc/errors.js";
import type { Connection } from "../rpc/connection.js";
import type { LoadedThread } from "../threads/loaded-thread.js";
import type { ThreadManager } from "../threads/manager.js";

/** A file a move would change in the checkout that decides what later runs. */
export interface ControlWrite {
  /** Relative to the repository root, with `/`. */
  path: string;
  reason: string;
}

const MAX_LISTED = 200;
const MAX_SHOWN = 20;

/**
 * The files a handoff to the checkout would change there, judged by the
 * approval gate's rule for control writes in the checkout: `.git/`,
 * `.knightcode/`, a folder shaped like a repository, the hooks folders,
 * the agent folder, and the code the checkout's trusted settings, global
 * settings and `-e` load (imports followed). A move changes every file in
 * which the worktree's HEAD differs from the checkout's, and every
 * uncommitted change.
 */
export async function controlWritesOfMove(options: { source: RepoInfo; dest: RepoInfo; head: string; threads: ThreadManager }): Promise<ControlWrite[]> {
  const { source, dest, head, threads } = options;
  const env = threads.context.env;
  const destHead = await commitOf({ repo: dest, env }, "HEAD");
  const committed =
    destHead === undefined || destHead === head
      ? ""
      : (await runGit(["diff", "--name-only", "-z", "--no-renames", destHead, head], { cwd: dest.root, env })).stdout.toString("utf8");
  const paths = [...new Set([...committed.split("\0").filter((path) => path !== ""), ...(await changedPaths(source.root, env))])];
  if (paths.length === 0) return [];
  const realRoot = realTarget(dest.root);
  const codeOptions: CodePathOptions = {
    agentDir: threads.context.agentDir,
    cwd: join(dest.root, ...source.prefix.split("/").filter(Boolean)),
    cliExtensions: threads.context.extensionPaths,
    isTrusted: (folder) => threads.environment.trust.decisionFor(folder) === true,
  };
  const targets = paths.map((path) => realTarget(join(realRoot, path)));
  // The settings are read once for the whole move, not once per file.
  const projects = new Set<string>();
  for (const target of new Map(targets.map((target) => [dirname(target), target])).values()) {
    for (const project of trustedProjectsAbove(target, codeOptions)) projects.add(project);
  }
  const code = settingsCodePaths(codeOptions, [...projects]);
  const codePathOf = (real: string) => code.find((entry) => (entry.folder ? isWithin(entry.path, real) : entry.path === real));
  const writes: ControlWrite[] = [];
  targets.forEach((target, index) => {
    const reason = controlReason(realRoot, target, true, { agentDir: threads.context.agentDir, codePathOf });
    if (reason) writes.push({ path: paths[index]!, reason });
  });
  return writes;
}

export function controlPathsError(writes: readonly ControlWrite[]): Error {
  const paths = writes.map((write) => write.path).slice(0, MAX_LISTED);
  return rpcError(
    "invalidParams",
    `the handoff would write files that decide what later runs into the checkout, and it was not confirmed: ${paths.slice(0, MAX_SHOWN).join(", ")}`,
    {
      reason: "controlPaths",
      paths,
    },
  );
}

function question(writes: readonly ControlWrite[], checkout: string): { title: string; message: string } {
  const shown = writes.slice(0, MAX_SHOWN).map((write) => `  ${write.path}: ${write.reason}`);
  if (writes.length > MAX_SHOWN) shown.push(`  and ${writes.length - MAX_SHOWN} more`);
  return {
    title: "Move files that decide what runs into your checkout?",
    message: `Handing off writes these files into ${checkout}, where they can change what later commands, hooks and threads run:\n${shown.join("\n")}`,
  };
}

/**
 * Before a handoff to the checkout: when it would write control files
 * there, the requesting client (else a subscriber) is asked; no yes is
 * `invalidParams` `controlPaths` and nothing has moved. Answers the paths
 * the user accepted, for the move to check again once it holds both
 * checkouts. What would fail the handoff anyway (a turn running, no
 * worktree, no commit) is left for the handoff to answer.
 */
export async function confirmControlWrites(
  thread: LoadedThread,
  threads: ThreadManager,
  worktree: StoredWorktree | undefined,
  request: { connection: Connection; signal: AbortSignal },
): Promise<Set<string>> {
  if (thread.turns.runningTurnId !== undefined || !worktree || worktree.record.deleted || !existsSync(worktree.record.path)) return new Set();
  const env = threads.context.env;
  const source = await discoverRepo(thread.cwd, env);
  const dest = await discoverRepo(worktree.record.checkoutRoot, env);
  const head = await commitOf({ repo: source, env }, "HEAD");
  if (head === undefined) return new Set();
  const writes = await controlWritesOfMove({ source, dest, head, threads });
  if (writes.length === 0) return new Set();
  if (!(await confirmForRequest(thread, request.connection, question(writes, dest.root), request.signal))) throw controlPathsError(writes);
  return new Set(writes.map((write) => write.path));
}
