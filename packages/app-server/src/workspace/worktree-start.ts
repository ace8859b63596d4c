import { createWorktree, discardWorktree } from "@knightcode/repo/worktrees/create";
import { environmentsPath, readEnvironments, scriptFor } from "@knightcode/agent/environments/environments-file";
import { gitText } from "@knightcode/repo/git/run";
import type { Warning } from "@knightcode/system/warning";
import type { WorkspaceState } from "@knightcode/store/session/format";
import type { ClientRequestParams } from "@knightcode/app-server-protocol";
import type { Connection } from "../rpc/connection.js";
import { rpcError } from "../rpc/errors.js";
import type { LoadedThread } from "../threads/loaded-thread.js";
import type { ThreadManager } from "../threads/manager.js";
import { withWorktreeErrors } from "./worktree-errors.js";

/** Where thread/start puts the new thread, and what follows once it exists. */
export interface StartPlace {
  /** The project the thread belongs to: its transcript's header cwd. */
  projectCwd: string;
  /** Where it runs, when that is not `projectCwd` in the user's checkout. */
  workspace?: WorkspaceState;
  /** For the start's answer only (a script that will not run). */
  warnings: Warning[];
  /** The thread could not be created: what was made for it goes. */
  abandon(): Promise<void>;
  /** The thread exists: the environment's setup starts, and worktrees past `keep` are pruned. */
  started(thread: LoadedThread, connection: Connection): void;
}

const nothingMore = { warnings: [], abandon: async () => undefined, started: () => undefined };

/**
 * thread/start's workspace: the user's checkout; the managed worktree
 * that `cwd` lies in (the new thread joins it, whatever was asked); or a
 * new worktree. Everything that can refuse the start (a bad environment
 * name, a broken environments file, a base that names no commit, a folder
 * outside git) does so before anything is made.
 */
export async function startPlace(
  params: Pick<ClientRequestParams<"thread/start">, "workspace">,
  cwd: string,
  threads: ThreadManager,
  /** A new worktree's files as this tree holds them (a fork at a turn: that turn's snapshot). */
  files?: string,
): Promise<StartPlace> {
  const joined = threads.worktrees.containing(cwd);
  if (joined) {
    const { record } = joined;
    const branch = await currentBranch(record.path, threads.context.env);
    const workspace: WorkspaceState = { mode: "worktree", cwd, path: record.path, baseRef: record.baseSha, ...(branch ? { branch } : {}) };
    return { projectCwd: record.projectCwd, workspace, ...nothingMore };
  }
  const asked = params.workspace;
  if (asked === undefined || asked.mode === "local") return { projectCwd: cwd, ...nothingMore };
  const { setup, warnings } = await environmentSetup(cwd, asked.environment, threads, "params.workspace.environment");
  const { root } = threads.worktrees.settings();
  const created = await withWorktreeErrors(
    () =>
      createWorktree({
        root,
        cwd,
        ...(asked.baseRef !== undefined ? { baseRef: asked.baseRef } : {}),
        ...(asked.carryLocalChanges ? { carryLocalChanges: true } : {}),
        ...(files !== undefined ? { files } : {}),
        ...(asked.environment !== undefined ? { environment: asked.environment } : {}),
        env: threads.context.env,
      }),
    "params.workspace.baseRef",
  );
  const { record } = created;
  return {
    projectCwd: cwd,
    workspace: { mode: "worktree", cwd: created.cwd, path: record.path, baseRef: record.baseSha },
    warnings,
    abandon: () => discardWorktree(created, threads.context.env),
    started: (thread, connection) => {
      if (setup) threads.worktrees.runSetup(thread, connection, setup.name, setup.script, record.path);
      void threads.worktrees.prune();
    },
  };
}

/** The branch checked out in a worktree, or undefined when it is detached (or cannot be read). */
async function currentBranch(path: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const name = await gitText(["symbolic-ref", "--quiet", "--short", "HEAD"], { cwd: path, env, okCodes: [1] }).catch(() => "");
  return name.trim() || undefined;
}

/**
 * The setup script of the environment `name` of the project at `cwd`, when
 * it may run (a trusted project); an untrusted project's is a warning
 * instead. An unknown name is invalidParams naming `field`.
 */
export async function environmentSetup(
  cwd: string,
  name: string | undefined,
  threads: ThreadManager,
  field: string,
): Promise<{ setup?: { name: string; script: string }; warnings: Warning[] }> {
  if (name === undefined) return { warnings: [] };
  const environment = await withWorktreeErrors(() => readEnvironments(cwd).environments.find((entry) => entry.name === name));
  if (!environment) throw rpcError("invalidParams", `${field}: ${environmentsPath(cwd)} has no environment named ${JSON.stringify(name)}`);
  if (threads.environment.trust.decisionFor(cwd) === true) return { setup: { name, script: scriptFor(environment.setup) }, warnings: [] };
  return {
    warnings: [
      { message: `The setup script of environment "${name}" did not run: ${cwd} is not a trusted project.`, source: "trust", path: environmentsPath(cwd) },
    ],
  };
}
