import { CATALOGUE_ENTRIES, type EffectiveSettings, settingsDefaults } from "./catalogue.js";
import { getPath, type SettingsObject, setPath } from "./keys.js";
import type { SettingsScope } from "./scope.js";
import type { Warning } from "@knightcode/system/warning";

export interface EffectiveInput {
  settings: SettingsObject;
  /** The global scope alone: where a global-only setting is read when a project set it too. */
  globalSettings?: SettingsObject;
  origins: Record<string, SettingsScope>;
  paths: Partial<Record<SettingsScope, string>>;
}

/** The scope a dotted key's value came from: its own entry, or the entry of the leaf that blocks it. */
function originOf(origins: Record<string, SettingsScope>, key: string): SettingsScope | undefined {
  if (Object.hasOwn(origins, key)) return origins[key];
  return Object.entries(origins).find(([leaf]) => leaf.startsWith(`${key}.`))?.[1];
}

function show(value: unknown): string {
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function mismatch(input: EffectiveInput, key: string, message: string): Warning {
  const scope = originOf(input.origins, key);
  const path = scope === undefined ? undefined : input.paths[scope];
  return path === undefined ? { message, source: "settings" } : { message, source: "settings", path };
}

/**
 * Typed values of every known setting: the merged value when it has the
 * right type, else the default, with a warning for each value that was
 * present but wrong (a group replaced by a scalar is reported once).
 */
export function computeEffective(input: EffectiveInput): { effective: EffectiveSettings; warnings: Warning[] } {
  const effective = settingsDefaults();
  const warnings: Warning[] = [];
  const reportedGroups = new Set<string>();
  for (const { key, segments, leaf } of CATALOGUE_ENTRIES) {
    // The project set this leaf, or replaced a group above it with a value of its own.
    const fromProject =
      leaf.globalOnly &&
      (originOf(input.origins, key) === "project" || segments.slice(0, -1).some((_, i) => input.origins[segments.slice(0, i + 1).join(".")] === "project"));
    if (fromProject) warnings.push(mismatch(input, key, `${key} is a global setting: the project's value is ignored`));
    const lookup = getPath(fromProject ? (input.globalSettings ?? {}) : input.settings, segments);
    if (lookup.blockedAt !== undefined) {
      if (!reportedGroups.has(lookup.blockedAt)) {
        reportedGroups.add(lookup.blockedAt);
        const message = `${lookup.blockedAt} must be an object of settings; its settings use their defaults`;
        warnings.push(mismatch(input, lookup.blockedAt, message));
      }
      continue;
    }
    if (!lookup.found) continue;
    if (leaf.kind.check(lookup.value)) {
      setPath(effective as unknown as SettingsObject, segments, structuredClone(lookup.value));
    } else {
      const message = `${key} must be ${leaf.kind.description}, got ${show(lookup.value)}; using the default ${show(leaf.defaultValue)}`;
      warnings.push(mismatch(input, key, message));
    }
  }
  return { effective, warnings };
}
