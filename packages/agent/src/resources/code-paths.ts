import { existsSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { isWithin, realTarget } from "../fs/real-target.js";
import { readSettingsScope } from "../settings/read.js";
import type { SettingsObject } from "../settings/keys.js";
import { projectBase, settingsFileOf } from "./layout.js";
import { resolveEntryPath } from "./paths.js";
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
/** Relative specifiers in static imports, re-exports, dynamic import() and require(). */
const RELATIVE_SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bimport\s+)(["'])(\.{1,2}\/[^"'\n]*)\1/g;
const MODULE_SUFFIXES = [".ts", ".mts", ".cts", ".js", ".mjs", ".cjs", ".tsx", ".jsx", ".json"];
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
  return settingsCodePaths(options, projectsAbove(real, options)).find((code) =>
    code.folder ? isWithin(code.path, real) : code.path === real,
  );
}

/** The thread's folder and each folder above `target` that has trusted project settings. */
function projectsAbove(target: string, options: CodePathOptions): string[] {
  const folders = new Set([resolve(options.cwd)]);
  for (let folder = dirname(target); ; folder = dirname(folder)) {
    if (existsSync(settingsFileOf(projectBase(folder)))) folders.add(folder);
    if (dirname(folder) === folder) break;
  }
  return [...folders].filter((folder) => options.isTrusted(folder));
}

/** Every code path the given settings name, with the extensions' relative imports followed. */
export function settingsCodePaths(options: CodePathOptions, trustedProjects: readonly string[]): CodePath[] {
  const home = options.homeDir ?? homedir();
  const found: CodePath[] = [];
  const add = (path: string, namedBy: string, via: CodePath["via"] = "settings"): void => {
    found.push({ path: realTarget(path), folder: !isFile(path), via, namedBy });
  };
  for (const path of options.cliExtensions) add(resolve(path), "-e", "cli");
  const scopes = [{ base: options.agentDir, folder: join(options.agentDir, "extensions") }];
  for (const project of trustedProjects) scopes.push({ base: projectBase(project), folder: join(projectBase(project), "extensions") });
  for (const { base, folder } of scopes) {
    const file = settingsFileOf(base);
    add(folder, file);
    const settings = readQuietly(file);
    if (!settings) continue;
    for (const raw of stringEntries(settings.extensions, "extensions", file, [])) {
      const entry = classifyEntry(raw);
      if (entry.kind === "path") add(resolveEntryPath(entry.value, base, home), file);
    }
    const packages = Array.isArray(settings.packages) ? (settings.packages as unknown[]) : [];
    packages.forEach((raw, index) => {
      const entry = normalizePackageEntry(raw, index, file, []);
      // A package folder is code as a whole: its package.json decides which of its files load.
      if (entry && !isRemoteSource(entry.source)) found.push({ path: realTarget(resolveEntryPath(entry.source, base, home)), folder: true, via: "settings", namedBy: file });
    });
  }
  return [...found, ...followImports(found)];
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
 * The modules the extension files import by relative path, and the files
 * such an import would load if they were created (an optional
 * `import("./local.js")` is code the moment someone writes it).
 */
function followImports(roots: readonly CodePath[]): CodePath[] {
  const out: CodePath[] = [];
  const seen = new Set(roots.map((root) => root.path));
  const queue = roots.filter((root) => !root.folder && CODE_FILE.test(root.path)).map((root) => root.path);
  let read = 0;
  while (queue.length > 0 && read < MAX_FOLLOWED_FILES) {
    const file = queue.shift()!;
    read++;
    for (const specifier of relativeSpecifiers(file)) {
      for (const candidate of moduleCandidates(resolve(dirname(file), specifier))) {
        const path = realTarget(candidate);
        if (seen.has(path)) continue;
        seen.add(path);
        out.push({ path, folder: false, via: "import", namedBy: file });
        if (isFile(path) && CODE_FILE.test(path)) queue.push(path);
      }
    }
  }
  return out;
}

function relativeSpecifiers(file: string): string[] {
  let text: string;
  try {
    if (statSync(file).size > MAX_SOURCE_BYTES) return [];
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  return [...text.matchAll(RELATIVE_SPECIFIER)].map((match) => match[2]!);
}

/** The files a relative specifier can load: as written, with a module suffix, `.js` written for `.ts`, or a folder's index. */
function moduleCandidates(path: string): string[] {
  const candidates = [path, ...MODULE_SUFFIXES.map((suffix) => path + suffix), ...["index.ts", "index.js", "index.mjs"].map((name) => join(path, name))];
  const swapped = /\.(m|c)?jsx?$/.exec(path);
  if (swapped) candidates.push(path.slice(0, swapped.index) + `.${swapped[1] ?? ""}ts`, path.slice(0, swapped.index) + ".tsx");
  return candidates;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
