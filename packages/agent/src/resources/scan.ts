import { readdirSync, statSync, type Stats } from "node:fs";
import { basename, dirname, extname, join } from "node:path";
import { realPathOf } from "@knightcode/system/fs/real-target";
import type { ResourceType } from "./types.js";

/** A resource file found on disk, named the way its type names things. */
export interface FoundFile {
  path: string;
  name: string;
}

export interface ScanOutcome {
  files: FoundFile[];
  problems: { message: string; path: string }[];
}

const EXTENSION_FILE = /\.(ts|js|mjs)$/;
const INDEX_FILES = ["index.ts", "index.js"];
export const SKILL_FILE = "SKILL.md";
/** Skills may nest in category folders, but a deep tree is a mistake, not a library. */
export const MAX_SKILL_DEPTH = 6;
export const MAX_SKILL_DIRS = 2000;

function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/** Sorted entry names of a folder, without dot entries; an unreadable folder is empty. */
function listNames(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((name) => !name.startsWith("."))
      .sort();
  } catch {
    return [];
  }
}

function isExtensionFile(name: string): boolean {
  return EXTENSION_FILE.test(name) && !name.endsWith(".d.ts");
}

function folderIndex(dir: string): string | undefined {
  return INDEX_FILES.map((name) => join(dir, name)).find((path) => statOrUndefined(path)?.isFile());
}

function stripExtension(name: string): string {
  return name.slice(0, name.length - extname(name).length);
}

function scanExtensionFolder(dir: string): FoundFile[] {
  const files: FoundFile[] = [];
  for (const name of listNames(dir)) {
    const path = join(dir, name);
    const stat = statOrUndefined(path);
    if (stat?.isFile() && isExtensionFile(name)) files.push({ path, name: stripExtension(name) });
    else if (stat?.isDirectory()) {
      const index = folderIndex(path);
      if (index) files.push({ path: index, name });
    }
  }
  return files;
}

function scanFlatFolder(dir: string, suffix: string): FoundFile[] {
  return listNames(dir)
    .filter((name) => name.endsWith(suffix) && statOrUndefined(join(dir, name))?.isFile())
    .map((name) => ({ path: join(dir, name), name: name.slice(0, -suffix.length) }));
}

/**
 * Every folder holding a SKILL.md under `root` (a skill folder is not searched
 * further). Real paths are remembered, so a symlink loop ends; node_modules,
 * dot folders, depth and the number of folders are bounded.
 */
function scanSkillFolder(root: string, outcome: ScanOutcome): void {
  const seen = new Set<string>();
  let visited = 0;
  const walk = (dir: string, depth: number): void => {
    const real = realPathOf(dir);
    if (seen.has(real)) return;
    seen.add(real);
    if (++visited > MAX_SKILL_DIRS) {
      if (visited === MAX_SKILL_DIRS + 1) outcome.problems.push({ message: `stopped looking for skills after ${MAX_SKILL_DIRS} folders`, path: root });
      return;
    }
    const skillFile = join(dir, SKILL_FILE);
    if (statOrUndefined(skillFile)?.isFile()) {
      outcome.files.push({ path: skillFile, name: basename(dir) });
      return;
    }
    if (depth >= MAX_SKILL_DEPTH) return;
    for (const name of listNames(dir)) {
      if (name === "node_modules") continue;
      const path = join(dir, name);
      if (statOrUndefined(path)?.isDirectory()) walk(path, depth + 1);
    }
  };
  walk(root, 0);
}

/** What a folder of the given type holds, scanned the way the agent dir's folders are. */
export function scanTypeFolder(type: ResourceType, dir: string): ScanOutcome {
  const outcome: ScanOutcome = { files: [], problems: [] };
  if (!statOrUndefined(dir)?.isDirectory()) return outcome;
  if (type === "extensions") outcome.files.push(...scanExtensionFolder(dir));
  else if (type === "skills") scanSkillFolder(dir, outcome);
  else if (type === "prompts") outcome.files.push(...scanFlatFolder(dir, ".md"));
  else outcome.files.push(...scanFlatFolder(dir, ".json"));
  return outcome;
}

function nameOfFile(type: ResourceType, path: string): string {
  if (type === "skills" && basename(path) === SKILL_FILE) return basename(dirname(path));
  if (type === "extensions" && INDEX_FILES.includes(basename(path))) return basename(dirname(path));
  return stripExtension(basename(path));
}

/**
 * What an explicit path brings: a file is one resource; an extension folder
 * with an index file is one extension; any other folder is scanned.
 * Undefined when nothing exists at the path.
 */
export function resourcesAtPath(type: ResourceType, path: string): ScanOutcome | undefined {
  const stat = statOrUndefined(path);
  if (!stat) return undefined;
  if (stat.isFile()) return { files: [{ path, name: nameOfFile(type, path) }], problems: [] };
  if (type === "extensions") {
    const index = folderIndex(path);
    if (index) return { files: [{ path: index, name: basename(path) }], problems: [] };
  }
  return scanTypeFolder(type, path);
}
