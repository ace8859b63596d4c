import { readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { isDirectory } from "@knightcode/system/fs/is-directory";
import { parseJsonText } from "@knightcode/system/fs/json-text";
import { readRegularFileSync } from "@knightcode/system/fs/regular-file";
import { PathPattern, globToRegExp, hasGlobChars } from "./glob.js";
import { realPathOf } from "@knightcode/system/fs/real-target";
import { relativeInside } from "./paths.js";
import { SKILL_FILE, resourcesAtPath, scanTypeFolder, type FoundFile, type ScanOutcome } from "./scan.js";
import { RESOURCE_TYPES, type ResourceType } from "./types.js";

/** What one package folder offers, by type, before any settings filter. */
export interface PackageContents {
  root: string;
  files: Record<ResourceType, FoundFile[]>;
  problems: { message: string; path: string }[];
}

const MANIFEST_KEY = "knightcode";
const MAX_GLOB_DEPTH = 8;
const MAX_GLOB_DIRS = 2000;

const TYPE_SUFFIX: Record<ResourceType, (name: string) => boolean> = {
  extensions: (name) => /\.(ts|js|mjs)$/.test(name) && !name.endsWith(".d.ts"),
  skills: (name) => name === SKILL_FILE,
  prompts: (name) => name.endsWith(".md"),
  themes: (name) => name.endsWith(".json"),
};

function emptyFiles(): Record<ResourceType, FoundFile[]> {
  return { extensions: [], skills: [], prompts: [], themes: [] };
}

/** The package.json manifest, undefined when there is none to follow. */
function readManifest(root: string, problems: PackageContents["problems"]): Record<string, unknown> | undefined {
  const file = join(root, "package.json");
  let text: string;
  try {
    text = readRegularFileSync(file).toString("utf8");
  } catch {
    return undefined;
  }
  const parsed = parseJsonText(text);
  if (!parsed.ok) {
    problems.push({ message: `package.json is not valid JSON (${parsed.error.message}); using the conventional folders`, path: file });
    return undefined;
  }
  const manifest = (parsed.value as Record<string, unknown> | null)?.[MANIFEST_KEY];
  if (manifest === undefined) return undefined;
  if (typeof manifest !== "object" || manifest === null || Array.isArray(manifest)) {
    problems.push({ message: `"${MANIFEST_KEY}" in package.json is not an object; using the conventional folders`, path: file });
    return undefined;
  }
  return manifest as Record<string, unknown>;
}

/** Files and folders under `root` whose package-relative path matches the glob. */
function globInside(root: string, glob: string): string[] {
  const segments = glob.split("/");
  const firstWild = segments.findIndex(hasGlobChars);
  const start = join(root, ...segments.slice(0, firstWild));
  const regex = globToRegExp(glob);
  const found: string[] = [];
  const seen = new Set<string>();
  const walk = (dir: string, depth: number): void => {
    const real = realPathOf(dir);
    if (seen.has(real) || seen.size >= MAX_GLOB_DIRS || depth > MAX_GLOB_DEPTH) return;
    seen.add(real);
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (name.startsWith(".") || name === "node_modules") continue;
      const path = join(dir, name);
      const rel = relativeInside(path, root);
      if (rel !== undefined && regex.test(rel)) found.push(path);
      else if (isDirectory(path)) walk(path, depth + 1);
    }
  };
  walk(start, 0);
  return found;
}

function manifestFiles(root: string, type: ResourceType, entries: unknown, problems: PackageContents["problems"]): FoundFile[] {
  const manifestPath = join(root, "package.json");
  if (entries === undefined) return [];
  if (!Array.isArray(entries) || entries.some((e) => typeof e !== "string")) {
    problems.push({ message: `"${MANIFEST_KEY}.${type}" in package.json must be a list of paths`, path: manifestPath });
    return [];
  }
  const files: FoundFile[] = [];
  const exclusions: PathPattern[] = [];
  for (const raw of entries as string[]) {
    if (raw.startsWith("!")) {
      exclusions.push(new PathPattern(raw.slice(1), root, root));
      continue;
    }
    const entry = raw.replace(/^\.\//, "").replace(/\/+$/, "");
    const found = hasGlobChars(entry) ? globMatches(root, type, entry) : pathInside(root, type, entry, problems);
    files.push(...found.files);
    problems.push(...found.problems);
  }
  return files.filter((file) => !exclusions.some((pattern) => pattern.matches(file.path)));
}

function globMatches(root: string, type: ResourceType, glob: string): ScanOutcome {
  const outcome: ScanOutcome = { files: [], problems: [] };
  for (const path of globInside(root, glob)) {
    if (!isDirectory(path) && !TYPE_SUFFIX[type](basename(path))) continue;
    const found = resourcesAtPath(type, path);
    if (found) {
      outcome.files.push(...found.files);
      outcome.problems.push(...found.problems);
    }
  }
  return outcome;
}

function pathInside(root: string, type: ResourceType, entry: string, problems: PackageContents["problems"]): ScanOutcome {
  const path = join(root, entry);
  if (entry !== "" && relativeInside(path, root) === undefined) {
    problems.push({ message: `"${MANIFEST_KEY}.${type}" entry "${entry}" leaves the package folder`, path: join(root, "package.json") });
    return { files: [], problems: [] };
  }
  const found = resourcesAtPath(type, path);
  if (!found) problems.push({ message: `"${MANIFEST_KEY}.${type}" entry "${entry}" does not exist in the package`, path });
  return found ?? { files: [], problems: [] };
}

/**
 * The resources of a local package folder: the `knightcode` manifest of its
 * package.json when it has one (a type the manifest leaves out brings
 * nothing), else the conventional extensions/, skills/, prompts/ and themes/.
 */
export function readPackage(root: string): PackageContents {
  const contents: PackageContents = { root, files: emptyFiles(), problems: [] };
  const manifest = readManifest(root, contents.problems);
  for (const type of RESOURCE_TYPES) {
    if (manifest) {
      contents.files[type] = manifestFiles(root, type, manifest[type], contents.problems);
    } else {
      const outcome = scanTypeFolder(type, join(root, type));
      contents.files[type] = outcome.files;
      contents.problems.push(...outcome.problems);
    }
  }
  return contents;
}
