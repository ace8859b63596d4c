import { existsSync, lstatSync, readFileSync, realpathSync, statSync, type Stats } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { LRUCache } from "lru-cache";
import { isDirectory } from "@knightcode/system/fs/is-directory";
import { isWithin, realTarget } from "@knightcode/system/fs/real-target";
import { readSettingsScope } from "../settings/read.js";
import type { SettingsObject } from "../settings/keys.js";
import { importTargets } from "./import-targets.js";
import { projectBase, settingsFileOf } from "./layout.js";
import { readPackage } from "./packages.js";
import { resolveEntryPath } from "./paths.js";
import { resourcesAtPath, scanTypeFolder } from "./scan.js";
import { classifyEntry, isRemoteSource, normalizePackageEntry, stringEntries } from "./settings-lists.js";

/**
 * A place whose files a thread of this server loads as code: an extension
 * module, a folder of them, or a package. Writing there changes what runs
 * inside the server the next time a thread loads.
 */
export interface CodePath {
  /** Absolute, links resolved. */
  path: string;
  /** A folder counts with everything below it. */
  folder: boolean;
  /** How it is loaded: named by a settings file or `-e`, or imported by a module that is. */
  via: "settings" | "cli" | "import";
  /** The settings file or the importing module; `-e` for a command-line extension. */
  namedBy: string;
}

export interface CodePathOptions {
  agentDir: string;
  /** The thread's folder: its project settings count when it is trusted. */
  cwd: string;
  /** The current trust decision for a project folder. */
  isTrusted(folder: string): boolean;
  /** `-e` paths, loaded in every thread. */
  cliExtensions: readonly string[];
  homeDir?: string;
}

/** Imports are followed this far, so a large tree of modules costs a bounded read. */
const MAX_FOLLOWED_FILES = 200;
const MAX_SOURCE_BYTES = 1024 * 1024;
/** Specifiers in static imports, re-exports, dynamic import() and require(), in any quotes a loader accepts. */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bimport\s+)(["'`])([^"'`\n$]+)\1/g;
const CODE_FILE = /\.(ts|mts|cts|js|mjs|cjs|tsx|jsx)$/;

/**
 * The code paths named by the settings a write to `target` could change the
 * code of: global settings, `-e`, and the trusted project settings of the
 * thread's folder and of every folder above the target (a thread in a
 * project's subfolder still writes into that project). Returns the one that
 * holds `target`, or undefined. Reads the settings afresh: a settings change
 * counts for the next thread at once, so it counts here at once too.
 */
export function codePathOf(target: string, options: CodePathOptions): CodePath | undefined {
  const real = realTarget(target);
  return settingsCodePaths(options, trustedProjectsAbove(real, options)).find((code) => (code.folder ? isWithin(code.path, real) : code.path === real));
}

/** The thread's folder and each folder above `target` that has project settings, when trusted. */
export function trustedProjectsAbove(target: string, options: CodePathOptions): string[] {
  const folders = new Set([resolve(options.cwd)]);
  for (let folder = dirname(target); ; folder = dirname(folder)) {
    if (existsSync(settingsFileOf(projectBase(folder)))) folders.add(folder);
    if (dirname(folder) === folder) break;
  }
  return [...folders].filter((folder) => options.isTrusted(folder));
}

/** Every code path the given settings name, with the imports of every module they load followed. */
export function settingsCodePaths(options: CodePathOptions, trustedProjects: readonly string[]): CodePath[] {
  const home = options.homeDir ?? homedir();
  const found: CodePath[] = [];
  /** The modules a thread loads from the folders and packages named: where import following starts, beside the named files. */
  const loaded: string[] = [];
  const add = (path: string, namedBy: string, via: CodePath["via"] = "settings"): void => {
    const folder = !isFile(path);
    found.push({ path: realTarget(path), folder, via, namedBy });
    if (folder) loaded.push(...(resourcesAtPath("extensions", path)?.files ?? []).map((file) => file.path));
  };
  for (const path of options.cliExtensions) add(resolve(path), "-e", "cli");
  const scopes = [{ base: options.agentDir, folder: join(options.agentDir, "extensions") }];
  for (const project of trustedProjects) scopes.push({ base: projectBase(project), folder: join(projectBase(project), "extensions") });
  for (const { base, folder } of scopes) {
    const file = settingsFileOf(base);
    found.push({ path: realTarget(folder), folder: true, via: "settings", namedBy: file });
    loaded.push(...scanTypeFolder("extensions", folder).files.map((hit) => hit.path));
    const settings = readQuietly(file);
    if (!settings) continue;
    for (const raw of stringEntries(settings.extensions, "extensions", file, [])) {
      const entry = classifyEntry(raw);
      if (entry.kind === "path") add(resolveEntryPath(entry.value, base, home), file);
    }
    const packages = Array.isArray(settings.packages) ? (settings.packages as unknown[]) : [];
    packages.forEach((raw, index) => {
      const entry = normalizePackageEntry(raw, index, file, []);
      if (!entry || isRemoteSource(entry.source)) return;
      // A package folder is code as a whole: its package.json decides which of its files load.
      const root = resolveEntryPath(entry.source, base, home);
      found.push({ path: realTarget(root), folder: true, via: "settings", namedBy: file });
      if (isDirectory(root)) loaded.push(...readPackage(root).files.extensions.map((hit) => hit.path));
    });
  }
  return [...found, ...followImports(found, loaded)];
}

/** Settings as a thread would read them; a file that cannot be read names nothing a thread could load either. */
function readQuietly(file: string): SettingsObject | undefined {
  try {
    const read = readSettingsScope("global", file);
    return read.state === "loaded" ? read.settings : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The modules the loaded files import, and theirs in turn, with the files
 * such an import would load if they were created (an optional
 * `import("./local.js")` is code the moment someone writes it): relative
 * and absolute paths, packages in `node_modules`, `#` subpath imports.
 */
function followImports(roots: readonly CodePath[], loaded: readonly string[]): CodePath[] {
  const out: CodePath[] = [];
  const seen = new Set(roots.map((root) => `${root.folder}:${root.path}`));
  const queue = [...roots.filter((root) => !root.folder).map((root) => root.path), ...loaded.map((path) => realTarget(path))].filter((path) =>
    CODE_FILE.test(path),
  );
  const queued = new Set(queue);
  const real = realResolver();
  const tried = new Set<string>();
  let read = 0;
  while (queue.length > 0 && read < MAX_FOLLOWED_FILES) {
    const file = queue.shift()!;
    read++;
    for (const specifier of specifiersOf(file)) {
      for (const target of importTargets(specifier, file)) {
        if (tried.has(`${target.folder}:${target.path}`)) continue;
        tried.add(`${target.folder}:${target.path}`);
        const { path, file: exists } = real(target.path);
        const key = `${target.folder}:${path}`;
        if (seen.has(key)) continue;
        seen.add(key);
        out.push({ path, folder: target.folder, via: "import", namedBy: file });
        if (!target.folder && exists && !queued.has(path) && CODE_FILE.test(path)) {
          queued.add(path);
          queue.push(path);
        }
      }
    }
  }
  return out;
}

/**
 * realTarget for the many candidate paths of one follow, and whether each
 * is a file: each folder is resolved once, a path in a folder that does
 * not exist costs nothing more, any other one lstat (and a link more).
 */
function realResolver(): (path: string) => { path: string; file: boolean } {
  const folders = new Map<string, { real: string; exists: boolean }>();
  const folderOf = (folder: string): { real: string; exists: boolean } => {
    let known = folders.get(folder);
    if (known === undefined) {
      try {
        known = { real: realpathSync.native(folder), exists: true };
      } catch {
        known = { real: dirname(folder) === folder ? folder : join(folderOf(dirname(folder)).real, basename(folder)), exists: false };
      }
      folders.set(folder, known);
    }
    return known;
  };
  return (path) => {
    const folder = folderOf(dirname(path));
    const joined = join(folder.real, basename(path));
    if (!folder.exists) return { path: joined, file: false };
    try {
      const stats = lstatSync(joined);
      if (!stats.isSymbolicLink()) return { path: joined, file: stats.isFile() };
      const linked = realTarget(joined);
      return { path: linked, file: isFile(linked) };
    } catch {
      return { path: joined, file: false };
    }
  };
}

/** Specifiers found in a file, kept per file version: every write a thread asks about reads them again. */
const specifierCache = new LRUCache<string, { version: string; specifiers: string[] }>({ max: 4096 });

function specifiersOf(file: string): string[] {
  let stats: Stats;
  try {
    stats = statSync(file);
  } catch {
    return [];
  }
  if (!stats.isFile() || stats.size > MAX_SOURCE_BYTES) return [];
  const version = `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
  const cached = specifierCache.get(file);
  if (cached?.version === version) return cached.specifiers;
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  const specifiers = [...new Set([...text.matchAll(SPECIFIER)].map((match) => match[2]!))];
  specifierCache.set(file, { version, specifiers });
  return specifiers;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
