import { existsSync, mkdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { GitConflictError } from "@knightcode/repo/git/errors";
import { applyChanges, captureChanges, changedPaths, dropChanges, type CapturedChanges } from "@knightcode/repo/git/changes";
import { commitOf, currentBranch } from "@knightcode/repo/git/ops/context";
import { createWorktree, discardWorktree } from "@knightcode/repo/worktrees/create";
import { discoverRepo, type RepoInfo } from "@knightcode/repo/git/repo";
import { noUserCodeConfig, runGit } from "@knightcode/repo/git/run";
import { operationInProgress } from "@knightcode/repo/git/ops/status";
import { readSettings } from "@knightcode/agent/settings/read";
import { requireBranchName } from "@knightcode/repo/git/ops/branches";
import { workspaceEntry } from "@knightcode/repo/worktrees/workspace";
import { writeFileAtomic } from "@knightcode/system/fs/atomic-write";
import type { StoredWorktree } from "@knightcode/repo/worktrees/record";
import type { Warning } from "@knightcode/system/warning";
import type { WorkspaceState } from "@knightcode/store/session/format";
import type { ClientRequestParams, ClientRequestResult } from "@knightcode/app-server-protocol";
import type { Connection } from "../rpc/connection.js";
import { rpcError } from "../rpc/errors.js";
import type { LoadedThread } from "../threads/loaded-thread.js";
import type { ThreadManager } from "../threads/manager.js";
import { exclusiveInCheckout } from "../git/checkout.js";
import { confirmControlWrites, controlPathsError, controlWritesOfMove } from "./handoff-control.js";
import { environmentSetup } from "./worktree-start.js";
import { withWorktreeErrors } from "./worktree-errors.js";

const LOCAL_CHANGES = "Stash or commit your local changes to hand off.";

/** What a move did, for the answer and for what follows the reload. */
interface Moved {
  place: WorkspaceState;
  branch?: string;
  warnings: Warning[];
  /** A new worktree's setup script, run once the thread is loaded there. */
  setup?: { name: string; script: string; path: string };
}

/**
 * thread/handoff's work: moves a thread and its uncommitted changes between its
 * worktree and the user's checkout. The destination must be clean; the
 * changes are saved under `<agentDir>/handoff/` before anything moves and
 * leave the source only once they landed. Every thread of both checkouts
 * is held meanwhile (a turn in any refuses the handoff). A move into the
 * checkout that would write files deciding what later runs there is asked
 * about first (see handoff-control.ts). Then the thread
 * loads again where it now runs: subscribers hear thread/replaced with the
 * same id and its queued inputs follow it.
 */
export function handoff(
  threads: ThreadManager,
  params: ClientRequestParams<"thread/handoff">,
  ctx: { connection: Connection; signal: AbortSignal },
): Promise<ClientRequestResult<"thread/handoff">> {
  return withWorktreeErrors(async () => {
    const thread = await threads.load(params.threadId);
    if (thread.file.summary().firstUserText === undefined)
      throw rpcError("invalidParams", `thread ${thread.id} has no message yet: there is nothing to hand off`);
    if (thread.place.mode === params.to) {
      throw rpcError("invalidParams", `params.to: thread ${thread.id} already runs in ${params.to === "local" ? "the user's checkout" : "its worktree"}`);
    }
    const confirmed = params.to === "local" ? await confirmControlWrites(thread, threads, worktreeOf(thread, threads), ctx) : new Set<string>();
    const move = params.to === "local" ? () => toLocal(thread, threads, params.branch, confirmed) : () => toWorktree(thread, threads, params.environment);
    const { thread: fresh, result } = await threads.relocate(thread, async () => {
      const moved = await move();
      thread.runtime.session.appendSafely(workspaceEntry(moved.place), true);
      if (thread.failureMessage !== undefined) throw rpcError("internal", `the handoff could not be recorded: ${thread.failureMessage}`);
      return moved;
    });
    if (result.setup) threads.worktrees.runSetup(fresh, ctx.connection, result.setup.name, result.setup.script, result.setup.path);
    if (params.to === "worktree") void threads.worktrees.prune();
    const answer: ClientRequestResult<"thread/handoff"> = { thread: fresh.thread(), warnings: [...result.warnings, ...fresh.loadWarnings] };
    if (result.branch !== undefined) answer.branch = result.branch;
    return answer;
  });
}

/**
 * From the thread's worktree to the user's checkout, on a branch at the
 * worktree's HEAD. Control files the user did not confirm (the move
 * changed since the question) refuse it before anything moves.
 */
async function toLocal(thread: LoadedThread, threads: ThreadManager, asked: string | undefined, confirmed: ReadonlySet<string>): Promise<Moved> {
  const worktree = worktreeOf(thread, threads);
  if (!worktree || worktree.record.deleted || !existsSync(worktree.record.path)) {
    throw new GitConflictError("worktreeDeleted", `the worktree of thread ${thread.id} was deleted; restore it first (thread/worktree/restore)`);
  }
  const source = await discoverRepo(thread.cwd, threads.context.env);
  const dest = await discoverRepo(worktree.record.checkoutRoot, threads.context.env);
  const env = threads.context.env;
  return holdingBoth(threads, thread, dest.root, source.root, async () => {
    await requireNoOperation(dest, source);
    await requireClean(dest.root, env);
    const head = await headOf(source, env);
    const unconfirmed = (await controlWritesOfMove({ source, dest, head, threads })).filter((write) => !confirmed.has(write.path));
    if (unconfirmed.length > 0) throw controlPathsError(unconfirmed);
    const own = (await currentBranch({ repo: source, env })) ?? undefined;
    const branch = await chooseBranch({ thread, threads, dest, head, own, asked });
    const before = { branch: await currentBranch({ repo: dest, env }), head: await headOf(dest, env) };
    const saved = await save(threads, thread, source, "local");
    const config = await noUserCodeConfig(dest.root, env);
    // A branch can be checked out in one place at a time: the worktree lets go of its own first.
    if (own) await runGit(["checkout", "-q", "--detach"], { cwd: source.root, env, config, readOnly: false });
    try {
      await runGit(branch.args, { cwd: dest.root, env, config, readOnly: false });
    } catch (error) {
      if (own) await runGit(["checkout", "-q", own], { cwd: source.root, env, config, readOnly: false }).catch(() => undefined);
      throw error;
    }
    try {
      await land(saved, dest.root, source, env);
    } catch (error) {
      // Nothing left the worktree: the checkout goes back to where it was (it was clean), and the worktree to its branch.
      await runGit(["checkout", "-q", ...(before.branch ? [before.branch] : ["--detach", before.head])], {
        cwd: dest.root,
        env,
        config,
        readOnly: false,
      }).catch(() => undefined);
      if (own) await runGit(["checkout", "-q", own], { cwd: source.root, env, config, readOnly: false }).catch(() => undefined);
      throw error;
    }
    const cwd = join(dest.root, ...source.prefix.split("/").filter(Boolean));
    mkdirSync(cwd, { recursive: true });
    return { place: { mode: "local", cwd, branch: branch.name }, branch: branch.name, warnings: [] };
  });
}

/** From the user's checkout to the thread's worktree (made when it has none), detached at the checkout's HEAD. */
async function toWorktree(thread: LoadedThread, threads: ThreadManager, environment: string | undefined): Promise<Moved> {
  const env = threads.context.env;
  const source = await discoverRepo(thread.cwd, env);
  const existing = worktreeOf(thread, threads);
  if (existing?.record.deleted) {
    throw new GitConflictError("worktreeDeleted", `the worktree of thread ${thread.id} was deleted; restore it first (thread/worktree/restore)`, {
      paths: [existing.record.path],
    });
  }
  const { setup, warnings } = existing
    ? { setup: undefined, warnings: [] }
    : await environmentSetup(thread.file.header.cwd, environment, threads, "params.environment");
  const head = await headOf(source, env);
  const work = async (dest: RepoInfo, made?: Awaited<ReturnType<typeof createWorktree>>): Promise<Moved> => {
    await requireNoOperation(source, dest);
    if (!made) {
      await requireClean(dest.root, env);
      const config = await noUserCodeConfig(dest.root, env);
      await runGit(["checkout", "-q", "--detach", head], { cwd: dest.root, env, config, readOnly: false });
    }
    const saved = await save(threads, thread, source, "worktree");
    await land(saved, dest.root, source, env);
    const cwd = join(dest.root, ...source.prefix.split("/").filter(Boolean));
    mkdirSync(cwd, { recursive: true });
    const branch = thread.place.branch;
    return {
      place: { mode: "worktree", cwd, path: dest.root, baseRef: made?.record.baseSha ?? head, ...(branch !== undefined ? { branch } : {}) },
      warnings,
      ...(made && setup ? { setup: { ...setup, path: made.record.path } } : {}),
    };
  };
  if (existing) {
    const dest = await discoverRepo(existing.record.path, env);
    return holdingBoth(threads, thread, source.root, dest.root, () => work(dest));
  }
  return exclusiveInCheckout(
    threads.loadedThreads(),
    source.root,
    async () => {
      const made = await createWorktree({
        root: threads.worktrees.settings().root,
        cwd: thread.cwd,
        baseRef: head,
        projectCwd: thread.file.header.cwd,
        threadIds: [thread.id],
        ...(environment !== undefined && setup ? { environment } : {}),
        env,
      });
      try {
        return await work(await discoverRepo(made.record.path, env), made);
      } catch (error) {
        await discardWorktree(made, env).catch(() => undefined);
        throw error;
      }
    },
    thread,
  );
}

/** The managed worktree the thread runs in or last ran in, if any. */
function worktreeOf(thread: LoadedThread, threads: ThreadManager): StoredWorktree | undefined {
  const path = thread.place.path;
  if (thread.place.mode === "worktree" && path !== undefined) return threads.worktrees.all().find(({ record }) => record.path === path);
  return threads.worktrees
    .all()
    .filter(({ record }) => record.threadIds.includes(thread.id))
    .sort((a, b) => (a.record.lastUsedAt < b.record.lastUsedAt ? 1 : -1))[0];
}

/** Holds every other thread of both checkouts while `work` runs. */
function holdingBoth<T>(threads: ThreadManager, thread: LoadedThread, a: string, b: string, work: () => Promise<T>): Promise<T> {
  return exclusiveInCheckout(threads.loadedThreads(), a, () => exclusiveInCheckout(threads.loadedThreads(), b, work, thread), thread);
}

async function requireNoOperation(...repos: RepoInfo[]): Promise<void> {
  for (const repo of repos) {
    const operation = operationInProgress(repo.gitDir);
    if (operation) {
      throw new GitConflictError("operationInProgress", `a ${operation} is in progress in ${repo.root}; finish or abort it first`, {
        recoveryInstructions: `Finish or abort the ${operation} in ${repo.root}, then hand off again.`,
      });
    }
  }
}

async function requireClean(root: string, env: NodeJS.ProcessEnv): Promise<void> {
  const paths = await changedPaths(root, env);
  if (paths.length > 0) throw new GitConflictError("localChanges", LOCAL_CHANGES, { paths: paths.slice(0, 200) });
}

/** The repository's HEAD commit; a repository with none yet cannot hand off. */
async function headOf(repo: RepoInfo, env: NodeJS.ProcessEnv): Promise<string> {
  const sha = await commitOf({ repo, env }, "HEAD");
  if (sha === undefined) throw rpcError("invalidParams", `${repo.root} has no commit yet: commit once before handing off`);
  return sha;
}

async function isAncestor(cwd: string, older: string, newer: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  return (await runGit(["merge-base", "--is-ancestor", older, newer], { cwd, env, okCodes: [1] })).code === 0;
}

/**
 * The branch the user's checkout takes, in the spec's order: the
 * worktree's own branch; else the one asked for (new, or already at the
 * worktree's HEAD); else the previous handoff's branch, fast-forwarded;
 * else `<worktrees.branchPrefix><title>`, made unique.
 */
async function chooseBranch(options: {
  thread: LoadedThread;
  threads: ThreadManager;
  dest: RepoInfo;
  head: string;
  own: string | undefined;
  asked: string | undefined;
}): Promise<{ name: string; args: string[] }> {
  const { thread, threads, dest, head, own, asked } = options;
  const env = threads.context.env;
  if (own) return { name: own, args: ["switch", "-q", own] };
  const git = { repo: dest, env };
  if (asked !== undefined) {
    await requireBranchName(git, asked);
    const at = await commitOf(git, `refs/heads/${asked}`);
    if (at === undefined) return { name: asked, args: ["switch", "-q", "-c", asked, head] };
    if (at === head) return { name: asked, args: ["switch", "-q", asked] };
    throw new GitConflictError("branchExists", `a branch named ${asked} exists already at another commit`, {
      recoveryInstructions: "Choose another branch name, or hand off without one.",
    });
  }
  const previous = thread.place.branch;
  if (previous !== undefined) {
    const at = await commitOf(git, `refs/heads/${previous}`);
    if (at !== undefined && (await isAncestor(dest.root, at, head, env))) return { name: previous, args: ["switch", "-q", "-C", previous, head] };
    if (at !== undefined) {
      throw new GitConflictError("branchExists", `the previous handoff's branch ${previous} has moved on and cannot be fast-forwarded`, {
        recoveryInstructions: `Name another branch with params.branch, or bring ${previous} up to date first.`,
      });
    }
  }
  const effective = readSettings({
    agentDir: threads.context.agentDir,
    cwd: thread.file.header.cwd,
    trust: threads.environment.trust.decisionFor(thread.file.header.cwd),
  }).effective;
  const base = `${effective.worktrees.branchPrefix}${slug(thread.name)}`;
  for (let n = 1; n < 1000; n++) {
    const name = n === 1 ? base : `${base}-${n}`;
    if ((await commitOf(git, `refs/heads/${name}`)) === undefined) {
      await requireBranchName(git, name);
      return { name, args: ["switch", "-q", "-c", name, head] };
    }
  }
  throw new GitConflictError("branchExists", `every branch name from ${base} on is taken`);
}

/** A thread's title as a branch name's last part: lower case words joined by dashes. */
export function slug(title: string): string {
  const words = title
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 48)
    .replace(/-+$/, "");
  return words === "" ? "handoff" : words;
}

interface Saved {
  changes: CapturedChanges;
  file: string;
}

/**
 * The source's changes, captured and written to `<agentDir>/handoff/`
 * (private to the user) before anything moves: should the server die half
 * way, the patch is there to apply by hand.
 */
async function save(threads: ThreadManager, thread: LoadedThread, source: RepoInfo, to: string): Promise<Saved> {
  const changes = await captureChanges(source, threads.context.env);
  const dir = join(threads.context.agentDir, "handoff");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, `${thread.id}-${Date.now()}-to-${to}.patch`);
  writeFileAtomic(file, changes.patch, { mode: 0o600 });
  return { changes, file };
}

/**
 * Applies the saved changes at the destination (whole or not at all), then
 * takes them out of the source, unless the source changed since they were
 * captured: then both keep what they have and the patch stays saved.
 */
async function land(saved: Saved, dest: string, source: RepoInfo, env: NodeJS.ProcessEnv): Promise<void> {
  const recovery = (what: string, output?: string) =>
    new GitConflictError("recoveryRequired", `${what}; the changes are saved in ${saved.file}`, {
      patch: saved.file,
      ...(output !== undefined ? { output } : {}),
      recoveryInstructions: `The changes are still in ${source.root} and saved in ${saved.file}; apply them with \`git apply --binary ${saved.file}\` where you want them.`,
    });
  try {
    await applyChanges(dest, saved.changes.patch, env);
  } catch (error) {
    throw error instanceof GitConflictError ? recovery("the changes did not apply at the destination", error.details.output) : error;
  }
  const again = await captureChanges(source, env);
  if (!again.patch.equals(saved.changes.patch)) throw recovery(`${source.root} changed while its changes moved`);
  await dropChanges(source.root, saved.changes, env);
  if (statSync(saved.file, { throwIfNoEntry: false })) rmSync(saved.file, { force: true });
}
