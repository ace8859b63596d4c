import { isWithin, realTarget } from "@knightcode/system/fs/real-target";
import type { SandboxLaunch } from "@knightcode/system/process/sandbox/command";
import { SandboxRequiredError } from "@knightcode/system/process/sandbox/thread-sandbox";
import { findExecutable } from "@knightcode/system/util/executable";
import type { ToolContext } from "../context.js";

export interface SearchToolOptions {
  /**
   * How grep and find search: "auto" (the default) runs rg or fd when the
   * PATH has them, else searches in this process with the same results;
   * "builtin" always searches in this process.
   */
  search?: "auto" | "builtin";
}

/** The program to run, or undefined to search in-process. */
export async function searchProgram(options: SearchToolOptions, names: readonly string[], env: NodeJS.ProcessEnv): Promise<string | undefined> {
  return options.search === "builtin" ? undefined : findExecutable(names, env);
}

/** An external program and the sandbox it runs in, or undefined to search in-process. */
export interface ExternalSearch {
  program: string;
  sandbox?: SandboxLaunch;
}

/**
 * rg or fd, when the PATH has them, in the thread's sandbox like any
 * command of the model's. Where the sandbox is required and cannot run,
 * the search happens in-process instead, under the credential refusals
 * alone, rather than refusing a read-only tool.
 */
export async function externalSearch(
  ctx: ToolContext,
  request: { callId: string; dir: string; options: SearchToolOptions; names: readonly string[]; env: NodeJS.ProcessEnv },
): Promise<ExternalSearch | undefined> {
  const program = await searchProgram(request.options, request.names, request.env);
  if (program === undefined) return undefined;
  try {
    const sandbox = await ctx.sandbox?.forCommand({ callId: request.callId });
    if (sandbox === undefined) return { program };
    // What the sandbox hides (the agent folder) is searched in-process, where only the credential files are refused.
    const dir = realTarget(request.dir);
    return sandbox.policy.hidden.some((hidden) => isWithin(hidden.path, dir)) ? undefined : { program, sandbox };
  } catch (error) {
    if (error instanceof SandboxRequiredError) return undefined;
    throw error;
  }
}
