import { PathPattern } from "./glob.js";
import type { PackageEntry, ResourceType, ResourceWarning } from "./types.js";

/** A `+pattern` or `-pattern` entry, or a path entry that switches on what it added. */
export interface ToggleRule {
  enable: boolean;
  applies(path: string, real: string): boolean;
}

export type ListEntry = { kind: "path"; value: string } | { kind: "pattern"; enable: boolean; pattern: string };

/** Entries that are `+x` or `-x` toggle; anything else names a path. */
export function classifyEntry(entry: string): ListEntry {
  if (entry.startsWith("+") || entry.startsWith("-")) return { kind: "pattern", enable: entry.startsWith("+"), pattern: entry.slice(1) };
  return { kind: "path", value: entry };
}

/** The string entries of a settings list; anything else is reported and left out. */
export function stringEntries(value: unknown, label: string, file: string, warnings: ResourceWarning[]): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    warnings.push({ message: `"${label}" in ${file} must be a list; ignored`, source: "settings", path: file });
    return [];
  }
  const out: string[] = [];
  for (const entry of value) {
    if (typeof entry === "string" && entry.trim() !== "") out.push(entry.trim());
    else
      warnings.push({ message: `"${label}" in ${file} has an entry that is not a path or pattern: ${JSON.stringify(entry)}`, source: "settings", path: file });
  }
  return out;
}

export function patternRule(enable: boolean, pattern: string, base: string, home: string): ToggleRule {
  const matcher = new PathPattern(pattern, base, home);
  return { enable, applies: (path, real) => matcher.matches(path) || (real !== path && matcher.matches(real)) };
}

/** Applies rules in order; the last one that applies decides. */
export function decide(rules: readonly ToggleRule[], path: string, real: string, initial = true): boolean {
  let enabled = initial;
  for (const rule of rules) if (rule.applies(path, real)) enabled = rule.enable;
  return enabled;
}

/** Local folders only: anything that looks like a registry or git source is not installed here. */
export function isRemoteSource(source: string): boolean {
  return /^(npm|git|github|https?|ssh|file):/i.test(source) || /^[\w.-]+@[\w.-]+:/.test(source);
}

export interface NormalizedPackageEntry {
  source: string;
  filters: Partial<Record<ResourceType, string[]>>;
  /** The entry as written, so a toggle can rewrite it in place. */
  index: number;
}

export function normalizePackageEntry(entry: unknown, index: number, file: string, warnings: ResourceWarning[]): NormalizedPackageEntry | undefined {
  if (typeof entry === "string" && entry.trim() !== "") return { source: entry.trim(), filters: {}, index };
  if (typeof entry !== "object" || entry === null || Array.isArray(entry) || typeof (entry as PackageEntry).source !== "string") {
    warnings.push({
      message: `"packages" in ${file} has an entry that is neither a path nor {source, ...}: ${JSON.stringify(entry)}`,
      source: "settings",
      path: file,
    });
    return undefined;
  }
  const object = entry as PackageEntry;
  const filters: NormalizedPackageEntry["filters"] = {};
  for (const type of ["extensions", "skills", "prompts", "themes"] as const) {
    if (object[type] === undefined) continue;
    filters[type] = stringEntries(object[type], `packages[${index}].${type}`, file, warnings);
  }
  return { source: object.source.trim(), filters, index };
}
