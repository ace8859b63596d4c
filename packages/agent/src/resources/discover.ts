import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { isDirectory } from "@knightcode/system/fs/is-directory";
import { projectBase, projectResourcePaths, settingsFileOf } from "./layout.js";
import { readPackage } from "./packages.js";
import { realPathOf } from "@knightcode/system/fs/real-target";
import { resolveEntryPath } from "./paths.js";
import { resourcesAtPath, scanTypeFolder, type FoundFile } from "./scan.js";
import {
  classifyEntry,
  decide,
  isRemoteSource,
  normalizePackageEntry,
  patternRule,
  stringEntries,
  type NormalizedPackageEntry,
  type ToggleRule,
} from "./settings-lists.js";
import { compareText, describeResources, markShadowed, resourceRank } from "./describe.js";
import { RESOURCE_TYPES, type Resource, type ResourceSettings, type ResourceType, type ResourceWarning, type ScopedSettings } from "./types.js";

export interface DiscoverOptions {
  agentDir: string;
  /** The project; without it only global resources (and `-e` ones) are found. */
  cwd?: string;
  /** Project-local folders and project settings are read only when true. */
  projectTrusted: boolean;
  /** Settings as already read; `project` is ignored unless the project is trusted. */
  settings: ScopedSettings;
  /** `-e` paths, absolute: explicitly trusted, always enabled. */
  cliExtensions?: string[];
  /** Built-in extension names: always on, so never listed. */
  builtinNames?: string[];
  /** Where `~` points; the process's home directory by default. */
  homeDir?: string;
}

/** Project resources that were not read because the project is not trusted. */
export interface SkippedProject {
  dir: string;
  reason: "untrusted";
  /** The project resource folders and settings file that exist. */
  paths: string[];
}

export interface DiscoveryResult {
  resources: Resource[];
  warnings: ResourceWarning[];
  skipped?: SkippedProject;
}

/** A resource on its way to the list, with what decides its place and state. */
export interface Candidate {
  resource: Resource;
  real: string;
  /** Lower wins: `-e`, project, project packages, global, global packages. */
  rank: number;
  rules: readonly ToggleRule[] | "cli";
}

interface Context {
  home: string;
  warnings: ResourceWarning[];
  candidates: Candidate[];
  topRules: Record<ResourceType, ToggleRule[]>;
  packages: Map<string, { scope: "global" | "project"; root: string; entry: NormalizedPackageEntry }>;
}

interface ScopeInput {
  scope: "global" | "project";
  base: string;
  settings: ResourceSettings | undefined;
}

type Placement = Pick<Resource, "scope" | "origin" | "source">;

function addFound(ctx: Context, files: FoundFile[], type: ResourceType, placement: Placement, rules: Candidate["rules"]): string[] {
  return files.map((file) => {
    const real = realPathOf(file.path);
    const resource: Resource = { type, path: file.path, name: file.name, enabled: true, ...placement };
    ctx.candidates.push({ resource, real, rank: resourceRank(resource), rules });
    return real;
  });
}

function collectCli(ctx: Context, paths: readonly string[]): void {
  for (const raw of paths) {
    const path = resolve(raw);
    const found = resourcesAtPath("extensions", path);
    if (!found || found.files.length === 0) {
      ctx.warnings.push({ message: found ? `-e ${path} holds no extension` : `-e ${path} does not exist`, source: "extension", path });
      continue;
    }
    addFound(ctx, found.files, "extensions", { scope: "cli", origin: "cli", source: path }, "cli");
  }
}

function collectTypeList(ctx: Context, input: ScopeInput, type: ResourceType): void {
  const file = settingsFileOf(input.base);
  const dir = join(input.base, type);
  const scanned = scanTypeFolder(type, dir);
  addFound(ctx, scanned.files, type, { scope: input.scope, origin: "directory", source: dir }, ctx.topRules[type]);
  for (const problem of scanned.problems) ctx.warnings.push({ ...problem, source: "settings" });
  for (const raw of stringEntries(input.settings?.[type], type, file, ctx.warnings)) {
    const entry = classifyEntry(raw);
    if (entry.kind === "pattern") {
      ctx.topRules[type].push(patternRule(entry.enable, entry.pattern, input.base, ctx.home));
      continue;
    }
    const path = resolveEntryPath(entry.value, input.base, ctx.home);
    const found = resourcesAtPath(type, path);
    if (!found) {
      ctx.warnings.push({ message: `"${type}" entry "${entry.value}" in ${file}: ${path} does not exist`, source: "settings", path });
      continue;
    }
    for (const problem of found.problems) ctx.warnings.push({ ...problem, source: "settings" });
    const added = new Set(addFound(ctx, found.files, type, { scope: input.scope, origin: "settings", source: file }, ctx.topRules[type]));
    ctx.topRules[type].push({ enable: true, applies: (_path, real) => added.has(real) });
  }
}

/** Records the scope's packages; a later entry, and project over global, wins for one folder. */
function collectPackageEntries(ctx: Context, input: ScopeInput): void {
  const file = settingsFileOf(input.base);
  const list = input.settings?.packages as unknown;
  if (list === undefined) return;
  if (!Array.isArray(list)) {
    ctx.warnings.push({ message: `"packages" in ${file} must be a list; ignored`, source: "settings", path: file });
    return;
  }
  list.forEach((raw, index) => {
    const entry = normalizePackageEntry(raw, index, file, ctx.warnings);
    if (!entry) return;
    if (isRemoteSource(entry.source)) {
      ctx.warnings.push({
        message: `package "${entry.source}" in ${file} is not a local folder; KnightCode installs nothing, so it is skipped`,
        source: "settings",
      });
      return;
    }
    const root = resolveEntryPath(entry.source, input.base, ctx.home);
    if (!isDirectory(root)) {
      ctx.warnings.push({ message: `package "${entry.source}" in ${file}: ${root} is not a folder`, source: "settings", path: root });
      return;
    }
    ctx.packages.set(realPathOf(root), { scope: input.scope, root, entry });
  });
}

function collectPackages(ctx: Context): void {
  for (const { scope, root, entry } of ctx.packages.values()) {
    const contents = readPackage(root);
    for (const problem of contents.problems) ctx.warnings.push({ ...problem, source: "settings" });
    for (const type of RESOURCE_TYPES) {
      const rules: ToggleRule[] = [];
      for (const raw of entry.filters[type] ?? []) {
        const parsed = classifyEntry(raw);
        if (parsed.kind === "pattern") rules.push(patternRule(parsed.enable, parsed.pattern, root, ctx.home));
        else ctx.warnings.push({ message: `package filter entry "${raw}" for ${root} must start with + or -; ignored`, source: "settings", path: root });
      }
      addFound(ctx, contents.files[type], type, { scope, origin: "package", source: root }, rules);
    }
  }
}

/** One candidate per type and real file: the one with the most specific origin. */
function dedupe(candidates: Candidate[]): Candidate[] {
  const kept = new Map<string, Candidate>();
  for (const candidate of [...candidates].sort((a, b) => a.rank - b.rank)) {
    const key = `${candidate.resource.type}\0${candidate.real}`;
    if (!kept.has(key)) kept.set(key, candidate);
  }
  return [...kept.values()];
}

function dropBuiltins(ctx: Context, candidates: Candidate[], builtinNames: readonly string[]): Candidate[] {
  const builtins = new Set(builtinNames);
  return candidates.filter(({ resource }) => {
    if (resource.type !== "extensions" || !builtins.has(resource.name)) return true;
    if (resource.origin !== "cli") {
      ctx.warnings.push({
        message: `extension ${resource.path} has the name of the built-in extension "${resource.name}" and is not loaded; rename it`,
        source: "extension",
        path: resource.path,
      });
    }
    return false;
  });
}

/**
 * Every extension, skill, prompt template and theme a thread in `cwd` would
 * find, with its enabled state and where it came from. Reads only the known
 * folders, the listed paths and packages; never throws for missing paths.
 */
export function discoverResources(options: DiscoverOptions): DiscoveryResult {
  const ctx: Context = {
    home: options.homeDir ?? homedir(),
    warnings: [],
    candidates: [],
    topRules: { extensions: [], skills: [], prompts: [], themes: [] },
    packages: new Map(),
  };
  collectCli(ctx, options.cliExtensions ?? []);
  const scopes: ScopeInput[] = [{ scope: "global", base: options.agentDir, settings: options.settings.global }];
  let skipped: SkippedProject | undefined;
  if (options.cwd !== undefined && options.projectTrusted) {
    scopes.push({ scope: "project", base: projectBase(options.cwd), settings: options.settings.project });
  } else if (options.cwd !== undefined) {
    const paths = projectResourcePaths(options.cwd);
    if (paths.length > 0) skipped = { dir: projectBase(options.cwd), reason: "untrusted", paths };
  }
  for (const input of scopes) {
    for (const type of RESOURCE_TYPES) collectTypeList(ctx, input, type);
    collectPackageEntries(ctx, input);
  }
  collectPackages(ctx);
  for (const c of ctx.candidates) c.resource.enabled = c.rules === "cli" || decide(c.rules, c.resource.path, c.real);
  const kept = dropBuiltins(ctx, dedupe(ctx.candidates), options.builtinNames ?? []);
  describeResources(kept, ctx.warnings);
  markShadowed(kept, ctx.warnings);
  const order = (c: Candidate) => RESOURCE_TYPES.indexOf(c.resource.type);
  kept.sort((a, b) => order(a) - order(b) || a.rank - b.rank || compareText(a.resource.name, b.resource.name) || compareText(a.resource.path, b.resource.path));
  return { resources: kept.map((c) => c.resource), warnings: ctx.warnings, ...(skipped ? { skipped } : {}) };
}
