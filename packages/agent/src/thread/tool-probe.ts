import type { SubAgentHandler } from "../tools/subagents.js";
import { readToolsFile } from "../tools/tools-json.js";
import { withProbeSession } from "./probe-session.js";
import type { ThreadEnvironment } from "./runtime-options.js";
import { threadBuiltinTools } from "./thread-tools.js";
import { selectTools } from "./tool-selection.js";

/** The sub-agent tools' handler in a listing, which only names them (a desktop thread that is no sub-agent has them). */
const NEVER_CALLED: SubAgentHandler = {
  start: () => Promise.reject(new Error("a listing starts nothing")),
  send: () => Promise.reject(new Error("a listing starts nothing")),
  wait: () => Promise.resolve([]),
  close: () => Promise.reject(new Error("a listing starts nothing")),
};

/** Where a tool comes from: ours, or an extension's (which may replace one of ours by name). */
export type ProbedToolSource = "builtin" | "extension";

export interface ToolListing {
  /** Every tool the thread has, each name once, sorted by name. */
  tools: { name: string; description: string; source: ProbedToolSource }[];
  /** The tools it offers the model, in the order it offers them. */
  defaultTools: string[];
}

/**
 * The tools a new desktop thread in `cwd` (a project-less one without it)
 * would have, from a session built in memory (withProbeSession): our
 * built-ins, ask_user and submit_plan as a desktop thread has them (offered
 * in plan mode, or when `defaultTools` names them), the tools tools.json
 * switches on, and the extensions' tools; and which of them a new thread
 * offers. The set comes from the same functions a thread uses, so what a
 * new thread offers is `defaultTools`, exactly.
 */
export async function probeTools(env: ThreadEnvironment, cwd: string | undefined): Promise<ToolListing> {
  const toolsFile = readToolsFile(env.agentDir);
  return withProbeSession(env, cwd, "tool/list", ({ cwd: folder, snapshot, host }) => {
    const builtins = threadBuiltinTools({
      context: { cwd: folder, agentDir: env.agentDir },
      // Never called: a desktop thread has these handlers, and the listing only names the tools.
      askUser: async () => undefined,
      submitPlan: async () => ({ approved: false }),
      subAgents: NEVER_CALLED,
      toolsFile,
    });
    const extensionTools = host.tools();
    const all = new Map<string, { name: string; description: string; source: ProbedToolSource }>();
    for (const tool of builtins) all.set(tool.name, { name: tool.name, description: tool.description, source: "builtin" });
    for (const tool of extensionTools) all.set(tool.name, { name: tool.name, description: tool.description, source: "extension" });
    const offered = selectTools(builtins, extensionTools, snapshot.effective.defaultTools);
    return {
      tools: [...all.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
      defaultTools: offered.map((tool) => tool.name),
    };
  });
}
