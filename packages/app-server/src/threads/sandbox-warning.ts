import type { ThreadRuntime } from "@knightcode/agent/thread/load-runtime";
import type { Warning } from "@knightcode/system/warning";

/**
 * The warning a thread gets when it wants the sandbox (not fullAccess,
 * `sandbox.mode` "workspace") on a machine where the sandbox cannot run:
 * nothing about containment is silent.
 */
export async function sandboxWarning(runtime: ThreadRuntime): Promise<Warning | undefined> {
  const state = await runtime.sandbox?.state();
  if (state === undefined || !state.wanted || state.available) return undefined;
  const outcome = state.required
    ? "sandbox.required is set, so this thread's commands are refused until it can run"
    : "this thread's commands run under the approval rules alone";
  return { message: `The OS sandbox cannot run on this machine (${state.reason}): ${outcome}. See docs/sandbox.md.`, source: "server" };
}
