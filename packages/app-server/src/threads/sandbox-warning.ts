import { sandboxSupport, type ThreadRuntime, type Warning } from "@knightcode/agent";
import type { ApprovalMode } from "@knightcode/app-server-protocol";

/**
 * The warning a thread gets when it loads wanting the sandbox (its mode is
 * not fullAccess, `sandbox.mode` is "workspace") on a machine where the
 * sandbox cannot run: nothing about containment is silent.
 */
export async function sandboxWarning(runtime: ThreadRuntime, mode: ApprovalMode, env: NodeJS.ProcessEnv): Promise<Warning | undefined> {
  const settings = runtime.settings.effective.sandbox;
  if (runtime.sandbox === undefined || mode === "fullAccess" || settings.mode === "off") return undefined;
  const support = await sandboxSupport(env);
  if (support.available) return undefined;
  const outcome = settings.required
    ? "sandbox.required is set, so this thread's commands are refused until it can run"
    : "this thread's commands run under the approval rules alone";
  return { message: `The OS sandbox cannot run on this machine (${support.reason ?? "unknown"}): ${outcome}. See docs/sandbox.md.`, source: "server" };
}
