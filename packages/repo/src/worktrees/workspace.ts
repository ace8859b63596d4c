import type { NewEntry, SessionHeader, WorkspaceState } from "@knightcode/store/session/format";
import { readBranchTail } from "@knightcode/store/session/read-page";
import type { BranchSummary } from "@knightcode/store/session/summary";

export type { WorkspaceState } from "@knightcode/store/session/format";

/** What a client sees of a thread's workspace: where it runs is the thread's `cwd`. */
export interface WorkspaceView {
  mode: "local" | "worktree";
  path?: string;
  baseRef?: string;
  branch?: string;
}

/**
 * The entry saying the thread runs in `state` from now on; append it
 * (durably) to the thread's transcript, then load the thread again for
 * its tools to run there.
 */
export function workspaceEntry(state: WorkspaceState): NewEntry {
  return { type: "workspace", ...state };
}

/**
 * Where a thread runs: what its latest workspace entry on the branch says,
 * else its header's folder, in the user's checkout.
 */
export function threadPlace(header: Pick<SessionHeader, "cwd">, summary: Pick<BranchSummary, "workspace">): WorkspaceState {
  return summary.workspace ? { ...summary.workspace } : { mode: "local", cwd: header.cwd };
}

/** The folder a thread's tools, runtime and approvals work in. */
export function effectiveCwd(header: Pick<SessionHeader, "cwd">, summary: Pick<BranchSummary, "workspace">): string {
  return summary.workspace?.cwd ?? header.cwd;
}

/** A saved thread's header and place, from its transcript's newest checkpoint on; nothing is locked or written. */
export async function readThreadPlace(path: string): Promise<{ header: SessionHeader; place: WorkspaceState }> {
  const tail = await readBranchTail(path);
  return { header: tail.header, place: threadPlace(tail.header, tail.summary) };
}

export function workspaceView(state: WorkspaceState): WorkspaceView {
  const { mode, path, baseRef, branch } = state;
  return { mode, ...(path !== undefined ? { path } : {}), ...(baseRef !== undefined ? { baseRef } : {}), ...(branch !== undefined ? { branch } : {}) };
}
