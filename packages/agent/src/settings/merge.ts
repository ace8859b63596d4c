import { cloneJson, forEachLeaf, isPlainObject, type SettingsObject, setOwn } from "./keys.js";
import type { SettingsScope } from "./scope.js";

export interface MergedSettings {
  settings: SettingsObject;
  /** Dotted leaf key -> the scope its value came from. */
  origins: Record<string, SettingsScope>;
}

function forget(origins: Map<string, SettingsScope>, key: string): void {
  for (const known of origins.keys()) if (known === key || known.startsWith(`${key}.`)) origins.delete(known);
}

function mergeInto(target: SettingsObject, source: SettingsObject, scope: SettingsScope, prefix: string, origins: Map<string, SettingsScope>): void {
  for (const name of Object.keys(source)) {
    const key = prefix === "" ? name : `${prefix}.${name}`;
    const value = source[name];
    const existing = Object.hasOwn(target, name) ? target[name] : undefined;
    if (isPlainObject(value) && isPlainObject(existing)) {
      mergeInto(existing, value, scope, key, origins);
      continue;
    }
    // Arrays and scalars replace whatever the earlier scope had, objects included.
    forget(origins, key);
    setOwn(target, name, cloneJson(value));
    forEachLeaf(value, key, (leafKey) => origins.set(leafKey, scope));
  }
}

/** Later scopes merge over earlier ones: objects deeply, arrays and scalars by replacement. */
export function mergeScopes(scopes: ReadonlyArray<{ scope: SettingsScope; settings: SettingsObject }>): MergedSettings {
  const settings: SettingsObject = {};
  const origins = new Map<string, SettingsScope>();
  for (const { scope, settings: source } of scopes) mergeInto(settings, source, scope, "", origins);
  return { settings, origins: Object.fromEntries(origins) };
}
