import { compareText, resourceRank } from "./describe.js";
import { isValidCommandName, loadSkill, skillCommandMessage } from "./skills.js";
import { expandPromptTemplate, loadPromptTemplate, parseSlashInput } from "./templates.js";
import { ResourceError, type Resource } from "./types.js";
import type { CommandInfo } from "@knightcode/schema/commands";

export type { CommandInfo };

export const SKILL_COMMAND_PREFIX = "skill:";

/** Enabled, unshadowed resources of a type, strongest first. */
function usable(resources: readonly Resource[], type: "skills" | "prompts"): Resource[] {
  return resources
    .filter((r) => r.type === type && r.enabled && r.shadowedBy === undefined && isValidCommandName(r.name))
    .sort((a, b) => resourceRank(a) - resourceRank(b) || compareText(a.path, b.path));
}

/**
 * The slash commands a thread offers, sorted by name: extension commands,
 * then prompt templates, then skills as `skill:<name>`. When two share a name
 * the first of that order wins: code an extension registered beats a template
 * file, and among files the project beats global (see `resourceRank`).
 */
export function listCommands(resources: readonly Resource[], extensionCommands: readonly { name: string; description?: string }[]): CommandInfo[] {
  const byName = new Map<string, CommandInfo>();
  const offer = (name: string, description: string | undefined) => {
    if (!byName.has(name)) byName.set(name, { name, description: description ?? "" });
  };
  for (const command of extensionCommands) offer(command.name.replace(/^\//, ""), command.description);
  for (const prompt of usable(resources, "prompts")) offer(prompt.name, prompt.description);
  for (const skill of usable(resources, "skills")) offer(`${SKILL_COMMAND_PREFIX}${skill.name}`, skill.description);
  return [...byName.values()].sort((a, b) => compareText(a.name, b.name));
}

export interface SlashExpansion {
  kind: "prompt" | "skill";
  name: string;
  resource: Resource;
  /** The user message to send in place of the typed command. */
  message: string;
}

/**
 * `/template args` or `/skill:name args` turned into the message to send.
 * Undefined when the text names no enabled template or skill; the caller
 * tries extension commands first, since they win over files.
 */
export function expandSlashInput(text: string, resources: readonly Resource[]): SlashExpansion | undefined {
  const input = parseSlashInput(text);
  if (!input) return undefined;
  const isSkill = input.name.startsWith(SKILL_COMMAND_PREFIX);
  const name = isSkill ? input.name.slice(SKILL_COMMAND_PREFIX.length) : input.name;
  const resource = usable(resources, isSkill ? "skills" : "prompts").find((r) => r.name === name);
  if (!resource) return undefined;
  try {
    const message = isSkill
      ? skillCommandMessage(loadSkill(resource.path), input.args)
      : expandPromptTemplate(loadPromptTemplate(resource.path).body, input.args);
    return { kind: isSkill ? "skill" : "prompt", name, resource, message };
  } catch (error) {
    throw new ResourceError("unreadable", `cannot read ${resource.path}: ${(error as Error).message}`, resource.path);
  }
}
