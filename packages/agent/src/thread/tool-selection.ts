import type { AgentTool } from "@mariozechner/pi-agent-core";

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
 * Tools of ours a thread has only in some conditions (someone to ask, a
 * plan review, tools.json switching them on): whenever it has them it
 * offers them, like extension tools, unless `-name` removes them.
 */
const OFFERED_WHEN_PRESENT: ReadonlySet<string> = new Set(["ask_user", "submit_plan", "websearch"]);

/**
 * The tools a thread offers the model: the built-ins `defaultTools` selects,
 * the conditional ones (ask_user, submit_plan, websearch) when present, and
 * every extension tool; `-name` removes any of them. An extension tool
 * replaces a built-in of the same name.
 */
export function selectTools(builtins: readonly AgentTool[], extensionTools: readonly AgentTool[], defaultTools: readonly string[]): AgentTool[] {
  const active = new Set(resolveDefaultTools(defaultTools));
  const removed = new Set(defaultTools.filter((p) => p.startsWith("-")).map((p) => p.slice(1)));
  const byName = new Map<string, AgentTool>();
  for (const tool of builtins) {
    if (active.has(tool.name) || (OFFERED_WHEN_PRESENT.has(tool.name) && !removed.has(tool.name))) byName.set(tool.name, tool);
  }
  for (const tool of extensionTools) if (!removed.has(tool.name)) byName.set(tool.name, tool);
  return [...byName.values()];
}
