import { statSync } from "node:fs";
import { join, resolve } from "node:path";
import { PROJECT_CONFIG_DIR } from "../settings/scope.js";
import type { Warning } from "@knightcode/system/warning";

/**
 * What in `<cwd>/.knightcode/` can change what KnightCode runs or loads, and
 * so waits for a trust decision. A trailing "/" marks a folder. Features that
 * add project files add them here.
 */
export const PROJECT_RESOURCES = ["settings.json", "extensions/", "skills/", "prompts/", "themes/", "mcp.json", "environments.json"] as const;

export type ProjectResource = (typeof PROJECT_RESOURCES)[number];

function present(path: string, folder: boolean): boolean {
  try {
    const stats = statSync(path);
    return folder ? stats.isDirectory() : stats.isFile();
  } catch {
    return false;
  }
}

/** The project resources that exist in `<cwd>/.knightcode/`, in PROJECT_RESOURCES order. */
export function findProjectResources(cwd: string): ProjectResource[] {
  const dir = join(resolve(cwd), PROJECT_CONFIG_DIR);
  if (!present(dir, true)) return [];
  return PROJECT_RESOURCES.filter((entry) => present(join(dir, entry), entry.endsWith("/")));
}

/** Whether the project has resources that wait for a trust decision, and which. */
export function needsTrust(cwd: string): { needsTrust: boolean; found: ProjectResource[] } {
  const found = findProjectResources(cwd);
  return { needsTrust: found.length > 0, found };
}

/** The warning a thread shows while an undecided project's resources are skipped. */
export function untrustedResourcesWarning(cwd: string, found: readonly string[]): Warning {
  return {
    message: `project resources skipped until trusted: ${found.join(", ")}`,
    source: "trust",
    path: join(resolve(cwd), PROJECT_CONFIG_DIR),
  };
}
