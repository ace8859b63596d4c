import type { Candidate } from "./discover.js";
import { readSkillHeader, isValidCommandName } from "./skills.js";
import { readPromptHeader } from "./templates.js";
import { RESOURCE_TYPES, type Resource, type ResourceWarning } from "./types.js";

/**
 * Which of two resources with one name wins: `-e` paths, then the project
 * (its own folders and settings, then its packages), then global (likewise).
 * Lower is stronger.
 */
export function resourceRank(resource: Pick<Resource, "scope" | "origin">): number {
  if (resource.scope === "cli") return 0;
  const packaged = resource.origin === "package" ? 1 : 0;
  return (resource.scope === "project" ? 1 : 3) + packaged;
}

export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Skills take their name and description from SKILL.md; templates their description. */
export function describeResources(candidates: readonly Candidate[], warnings: ResourceWarning[]): void {
  for (const { resource } of candidates) {
    try {
      if (resource.type === "skills") {
        const header = readSkillHeader(resource.path);
        resource.name = header.name;
        if (header.description) resource.description = header.description;
        if (resource.enabled) for (const message of header.problems) warnings.push({ message, source: "settings", path: resource.path });
      } else if (resource.type === "prompts") {
        const header = readPromptHeader(resource.path);
        if (header.description) resource.description = header.description;
        if (resource.enabled) for (const message of header.problems) warnings.push({ message, source: "settings", path: resource.path });
        if (resource.enabled && !isValidCommandName(resource.name)) {
          warnings.push({
            message: `prompt template "${resource.name}" cannot be typed as a command (spaces or over 64 characters); rename the file`,
            source: "settings",
            path: resource.path,
          });
        }
      }
    } catch (error) {
      warnings.push({ message: `cannot read ${resource.path}: ${(error as Error).message}`, source: "settings", path: resource.path });
    }
  }
}

const NAMED_TYPES = new Set(["skills", "prompts", "themes"]);

/**
 * Among enabled skills, templates and themes of one name, the strongest is
 * used and the others are marked and reported. Extensions are not named
 * things to pick from (each registers its own commands), so they never shadow.
 */
export function markShadowed(candidates: readonly Candidate[], warnings: ResourceWarning[]): void {
  const winners = new Map<string, Resource>();
  const typeOrder = (c: Candidate) => RESOURCE_TYPES.indexOf(c.resource.type);
  const ordered = [...candidates].sort((a, b) => typeOrder(a) - typeOrder(b) || a.rank - b.rank || compareText(a.resource.path, b.resource.path));
  for (const { resource } of ordered) {
    if (!resource.enabled || !NAMED_TYPES.has(resource.type)) continue;
    const key = `${resource.type}\0${resource.name}`;
    const winner = winners.get(key);
    if (!winner) {
      winners.set(key, resource);
      continue;
    }
    resource.shadowedBy = winner.path;
    const kind = resource.type.slice(0, -1);
    warnings.push({
      message: `${kind} "${resource.name}" at ${resource.path} (${resource.scope}) is hidden by the one at ${winner.path} (${winner.scope})`,
      source: "settings",
      path: resource.path,
    });
  }
}
