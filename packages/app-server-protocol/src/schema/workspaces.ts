import { Type } from "typebox";
import { Closed, Warning } from "./common.js";
import { notification, request } from "./define.js";
import { reasons } from "../reasons.js";
import { Thread } from "./threads.js";
import { ManagedWorktree } from "@knightcode/schema/worktrees";

export const workspaces = {
  clientRequests: {
    "thread/handoff": request({
      params: Type.Object(
        {
          threadId: Type.String({ minLength: 1, maxLength: 128, description: "The thread's id." }),
          to: Type.Union([Type.Literal("local"), Type.Literal("worktree")], {
            description: "local: the user's checkout; worktree: the thread's managed worktree (made when it has none).",
          }),
          branch: Type.Optional(
            Type.String({ minLength: 1, maxLength: 255, description: "To local: the branch to create when the worktree has none of its own." }),
          ),
          environment: Type.Optional(
            Type.String({ minLength: 1, maxLength: 128, description: "To a new worktree: the environment whose setup script runs there." }),
          ),
        },
        Closed,
      ),
      result: Type.Object(
        {
          thread: Thread,
          branch: Type.Optional(Type.String({ description: "To local: the branch now checked out in the user's checkout." })),
          warnings: Type.Array(Warning, { description: "Problems found while reloading the thread there." }),
        },
        Closed,
      ),
      errors: ["threadNotFound", "turnInProgress", "notGitRepo", "gitConflict"],
      reasons: reasons("localChanges", "operationInProgress", "branchExists", "recoveryRequired", "worktreeDeleted", "controlPaths"),
      doc: "Moves a thread and its uncommitted changes between its worktree and the user's checkout; the thread reloads there (thread/replaced, same id) and its queued inputs follow. To the checkout, files the move would change there that decide what later runs (.knightcode/, hooks, code the settings load) are named in a ui/dialog confirm first; no yes is invalidParams controlPaths with data.paths, and nothing moves.",
    }),
    "thread/worktree/restore": request({
      params: Type.Object({ threadId: Type.String({ minLength: 1, maxLength: 128, description: "The thread's id." }) }, Closed),
      result: Type.Object({ thread: Thread }, Closed),
      errors: ["threadNotFound", "gitConflict"],
      reasons: reasons("archived", "worktreeMissing", "submodules", "localChanges"),
      doc: "Rebuilds a worktree thread's deleted worktree at its old path from its snapshot (detached at the old HEAD, files and staged state as they were), then loads the thread there.",
    }),
    "worktree/list": request({
      params: Type.Object(
        { cwd: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, description: "Only the worktrees of this project's repository." })) },
        Closed,
      ),
      result: Type.Object({ worktrees: Type.Array(ManagedWorktree) }, Closed),
      doc: "The managed worktrees, deleted ones included, most recently used first.",
    }),
    "worktree/delete": request({
      params: Type.Object({ path: Type.String({ minLength: 1, maxLength: 4096, description: "The worktree's path, as worktree/list shows it." }) }, Closed),
      result: Type.Object(
        { snapshot: Type.Optional(Type.String({ description: "The ref that keeps its snapshot: refs/knightcode/snapshots/<bucket>/<Unix ms>." })) },
        Closed,
      ),
      errors: ["gitConflict"],
      reasons: reasons("worktreeInUse", "submodules"),
      doc: "Deletes a managed worktree after its snapshot; never one a thread is loaded in (worktreeInUse) or that holds a nested repository (submodules).",
    }),
  },
  serverNotifications: {
    "thread/workspace/progress": notification({
      params: Type.Object(
        {
          threadId: Type.String({ description: "The thread's id." }),
          phase: Type.Union([Type.Literal("setup"), Type.Literal("cleanup")], { description: "Which environment script is running." }),
          output: Type.String({ description: "The next piece of the script's output (stdout and stderr as they came); empty in the report that ends it." }),
          done: Type.Optional(Type.Boolean({ description: "The script ended: the last report of the phase." })),
          exitCode: Type.Optional(Type.Union([Type.Integer(), Type.Null()], { description: "With done: how it ended; null when a signal stopped it." })),
        },
        Closed,
      ),
      doc: "Output of an environment's setup or cleanup script in a thread's worktree; to the connection that asked for the work.",
    }),
  },
} as const;
