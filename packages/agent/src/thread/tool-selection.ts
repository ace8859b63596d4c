import type { AgentTool } from "@mariozechner/pi-agent-core";
import { SUBAGENT_TOOLS } from "../tools/subagents.js";

/** The built-in tools a thread registers when `defaultTools` names none. */
export const DEFAULT_ACTIVE_TOOLS = ["read", "bash", "edit", "write"] as const;

/**
 * Resolves the `defaultTools` setting: plain names choose the set (replacing
 * the default read, bash, edit, write), `+name` adds and `-name` removes one.
 * Returns the active tool names in the order they were resolved.
 */
export function resolveDefaultTools(patterns: readonly string[]): string[] {
  const plain = patterns.filter((p) => !p.startsWith("+") && !p.startsWith("-"));
  const active = new Set<string>(plain.length > 0 ? plain : DEFAULT_ACTIVE_TOOLS);
  for (const pattern of patterns) {
    if (pattern.startsWith("+")) active.add(pattern.slice(1));
    else if (pattern.startsWith("-")) active.delete(pattern.slice(1));
  }
  return [...active];
}

/**
 * Tools of ours a thread has only sometimes: websearch when tools.json
 * switches it on, the sub-agent tools where the host can start sub-agents.
 * When present they are offered, like extension tools, unless `-name`
 * removes them.
 */
const OFFERED_WHEN_PRESENT: ReadonlySet<string> = new Set(["websearch", ...SUBAGENT_TOOLS]);

/**
 * The tools of plan mode: asking the user and submitting the plan. A thread
 * offers them while plan mode is on, and otherwise only when `defaultTools`
 * names them, so that a new thread offers exactly the tools `defaultTools`
 * resolves to.
 */
export const PLAN_MODE_TOOLS: ReadonlySet<string> = new Set(["ask_user", "submit_plan"]);

export interface ToolSelectionOptions {
  /** Plan mode adds ask_user and submit_plan (unless `-name` removes them). */
  planMode?: boolean;
  /** Only these may be offered (a sub-agent started with a subset of its parent's tools). */
  only?: ReadonlySet<string>;
}

/**
 * The tools a thread offers the model: the built-ins `defaultTools` selects,
 * websearch when tools.json switches it on, ask_user and submit_plan in plan
 * mode, and every extension tool; `-name` removes any of them. An extension
 * tool replaces a built-in of the same name.
 */
export function selectTools(
  builtins: readonly AgentTool[],
  extensionTools: readonly AgentTool[],
  defaultTools: readonly string[],
  options: ToolSelectionOptions = {},
): AgentTool[] {
  const active = new Set(resolveDefaultTools(defaultTools));
  const removed = new Set(defaultTools.filter((p) => p.startsWith("-")).map((p) => p.slice(1)));
  const conditional = (name: string) => OFFERED_WHEN_PRESENT.has(name) || (options.planMode === true && PLAN_MODE_TOOLS.has(name));
  const byName = new Map<string, AgentTool>();
  for (const tool of builtins) {
    if (active.has(tool.name) || (conditional(tool.name) && !removed.has(tool.name))) byName.set(tool.name, tool);
  }
  for (const tool of extensionTools) if (!removed.has(tool.name)) byName.set(tool.name, tool);
  const only = options.only;
  return [...byName.values()].filter((tool) => only === undefined || only.has(tool.name));
}
