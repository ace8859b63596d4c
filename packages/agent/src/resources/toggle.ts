import { homedir } from "node:os";
import { resolve } from "node:path";
import { hasGlobChars } from "./glob.js";
import { scopeBase } from "./layout.js";
import { realPathOf } from "@knightcode/system/fs/real-target";
import { relativeInside, resolveEntryPath } from "./paths.js";
import { classifyEntry } from "./settings-lists.js";
import { ResourceError, type PackageEntry, type Resource, type ResourceType, type ScopedSettings } from "./types.js";

export interface ToggleRequest {
  /** The list `discoverResources` answered for the same cwd. */
  resources: readonly Resource[];
  type: ResourceType;
  path: string;
  enabled: boolean;
  /** Settings as already read, the same that produced `resources`. */
  settings: ScopedSettings;
  agentDir: string;
  cwd?: string;
  projectTrusted: boolean;
  homeDir?: string;
}

/** The one settings change to make: set `key` of the `scope` settings file to `value`. */
export type ResourceTogglePlan =
  | { scope: "global" | "project"; key: ResourceType; value: string[] }
  | { scope: "global" | "project"; key: "packages"; value: (string | PackageEntry)[] };

function samePath(a: string, b: string): boolean {
  return a === b || realPathOf(a) === realPathOf(b);
}

/** The list without `+x`/`-x` entries that name exactly `target`, then `±target` appended. */
function rewriteList(list: readonly unknown[], target: string, base: string, home: string, enabled: boolean): unknown[] {
  const kept = list.filter((raw) => {
    if (typeof raw !== "string") return true;
    const entry = classifyEntry(raw.trim());
    if (entry.kind !== "pattern" || hasGlobChars(entry.pattern)) return true;
    return !samePath(resolveEntryPath(entry.pattern, base, home), target);
  });
  const written = relativeInside(target, base) ?? target;
  return [...kept, `${enabled ? "+" : "-"}${written}`];
}

function findResource(request: ToggleRequest): Resource {
  const path = resolve(request.path);
  const resource = request.resources.find((r) => r.type === request.type && samePath(r.path, path));
  if (!resource) throw new ResourceError("unknownResource", `no ${request.type} resource at ${path}`, path);
  if (resource.scope === "cli") throw new ResourceError("cliResource", `${path} was loaded with -e and is always enabled`, path);
  if (resource.scope === "project" && (!request.projectTrusted || request.cwd === undefined)) {
    throw new ResourceError("untrusted", `${path} belongs to a project that is not trusted`, path);
  }
  return resource;
}

function planPackageToggle(request: ToggleRequest, resource: Resource, base: string, home: string): ResourceTogglePlan {
  const scope = resource.scope as "global" | "project";
  const packages = request.settings[scope]?.packages as unknown;
  const list: unknown[] = Array.isArray(packages) ? packages : [];
  const index = list.findLastIndex((entry) => {
    const source = typeof entry === "string" ? entry : (entry as PackageEntry | null)?.source;
    return typeof source === "string" && samePath(resolveEntryPath(source.trim(), base, home), resource.source);
  });
  if (index === -1) throw new ResourceError("unknownResource", `no package entry for ${resource.source} in the ${scope} settings`, resource.path);
  const current = list[index] as string | PackageEntry;
  const entry: PackageEntry = typeof current === "string" ? { source: current } : { ...current };
  const filter: unknown[] = Array.isArray(entry[request.type]) ? entry[request.type]! : [];
  entry[request.type] = rewriteList(filter, resource.path, resource.source, home, request.enabled) as string[];
  const value = list.map((item, i) => (i === index ? entry : item)) as (string | PackageEntry)[];
  return { scope, key: "packages", value };
}

/**
 * The settings edit behind `resource/set`: a `+path` or `-path` entry (relative
 * to the scope base when inside it) written last in the list of the scope that
 * defines the resource, replacing earlier `+`/`-` entries for the same path; for
 * a package's resource, in that package entry's own filter.
 */
export function planResourceToggle(request: ToggleRequest): ResourceTogglePlan {
  const resource = findResource(request);
  const home = request.homeDir ?? homedir();
  const scope = resource.scope as "global" | "project";
  const base = scopeBase(scope, request.agentDir, request.cwd);
  if (resource.origin === "package") return planPackageToggle(request, resource, base, home);
  const current = request.settings[scope]?.[request.type] as unknown;
  const list: unknown[] = Array.isArray(current) ? current : [];
  return { scope, key: request.type, value: rewriteList(list, resource.path, base, home, request.enabled) as string[] };
}
