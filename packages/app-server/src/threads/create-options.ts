import type { WorkspaceState } from "@knightcode/store/session/format";

/** How a thread is created: in a workspace of its own, as a sub-agent, with a subset of the tools. */
export interface CreateOptions {
  workspace?: WorkspaceState;
  parent?: { threadId: string; callId: string };
  onlyTools?: readonly string[];
  /** The thread will likely want the sandbox (its start asks for no fullAccess): the sandbox's probe, which its warning waits for, begins now. */
  sandboxed?: boolean;
}
