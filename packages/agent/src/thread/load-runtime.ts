import type { Warning } from "@knightcode/system/warning";
import type { CommandInfo } from "../resources/commands.js";
import type { ThreadEnvironment, ThreadRuntimeOptions } from "./runtime-options.js";
import type { ThreadRuntime as Runtime } from "./runtime.js";
import type { ToolListing } from "./tool-probe.js";

type RuntimeModule = typeof import("./runtime.js");

let loading: Promise<RuntimeModule> | undefined;

/**
 * The agent run (its loop, tools and their TypeBox schemas, extensions,
 * resources) loads with the first thread, or when a host warms it up:
 * listing and reading history never wait for it.
 */
export function loadThreadRuntime(): Promise<RuntimeModule> {
  loading ??= import("./runtime.js");
  return loading;
}

export type ThreadRuntime = Runtime;

/** `ThreadRuntime.create`, loading the agent run first when it has not loaded yet. */
export const ThreadRuntime = {
  async create(options: ThreadRuntimeOptions): Promise<{ runtime: ThreadRuntime; warnings: Warning[] }> {
    const { ThreadRuntime: Loaded } = await loadThreadRuntime();
    return Loaded.create(options);
  },
};

/** The commands a new thread in `cwd` would offer, from a session built in memory (probeCommands); loads the agent run first. */
export async function probeThreadCommands(environment: ThreadEnvironment, cwd: string): Promise<CommandInfo[]> {
  const { probeCommands } = await loadThreadRuntime();
  return probeCommands(environment, cwd);
}

/** The tools a new thread in `cwd` (or a project-less one) would have and offer, from a session built in memory (probeTools); loads the agent run first. */
export async function probeThreadTools(environment: ThreadEnvironment, cwd: string | undefined): Promise<ToolListing> {
  const { probeTools } = await loadThreadRuntime();
  return probeTools(environment, cwd);
}
