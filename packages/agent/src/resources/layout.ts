import { existsSync } from "node:fs";
import { join } from "node:path";
import { PROJECT_CONFIG_DIR } from "../settings/scope.js";
import { RESOURCE_TYPES } from "./types.js";

export { PROJECT_CONFIG_DIR };

export function projectBase(cwd: string): string {
  return join(cwd, PROJECT_CONFIG_DIR);
}

/** Where relative settings paths of a scope start: the agent dir, or `<cwd>/.knightcode`. */
export function scopeBase(scope: "global" | "project", agentDir: string, cwd?: string): string {
  if (scope === "global") return agentDir;
  if (cwd === undefined) throw new Error("a project scope needs a cwd");
  return projectBase(cwd);
}

export function settingsFileOf(base: string): string {
  return join(base, "settings.json");
}

/**
 * The project-local resource locations that exist: what trusting the project
 * would start reading. Only these few paths are looked at.
 */
export function projectResourcePaths(cwd: string): string[] {
  const base = projectBase(cwd);
  return [...RESOURCE_TYPES.map((type) => join(base, type)), settingsFileOf(base)].filter((path) => existsSync(path));
}
