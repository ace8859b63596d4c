import { catalogueNode, SETTINGS_CATALOGUE, SettingLeaf, type SettingGroup } from "./catalogue.js";
import { SettingsError } from "./errors.js";
import { FORBIDDEN_SEGMENTS, forEachLeaf, getPath, isPlainObject, type SettingsObject } from "./keys.js";
import { canonicalKeyOf, SETTING_MIGRATIONS } from "./migrations.js";

const MAX_VALUE_DEPTH = 64;

/**
 * Plain JSON data only: no undefined, functions, class instances or
 * non-finite numbers, and (for values a client sends) no prototype names.
 */
function checkJsonData(value: unknown, key: string, allowPrototypeNames: boolean, depth = 0): void {
  const fail = (why: string) => new SettingsError("invalidValue", `${key}: ${why}`, { key });
  if (depth > MAX_VALUE_DEPTH) throw fail(`nested deeper than ${MAX_VALUE_DEPTH} levels`);
  if (value === null || typeof value === "string" || typeof value === "boolean") return;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw fail("numbers must be finite");
    return;
  }
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) checkJsonData(item, `${key}[${i}]`, allowPrototypeNames, depth + 1);
    return;
  }
  if (!isPlainObject(value)) throw fail(`${value === undefined ? "undefined" : typeof value} is not JSON data (use null to delete)`);
  for (const name of Object.keys(value)) {
    if (!allowPrototypeNames && FORBIDDEN_SEGMENTS.has(name)) throw fail(`the property name ${JSON.stringify(name)} is not allowed`);
    checkJsonData(value[name], `${key}.${name}`, allowPrototypeNames, depth + 1);
  }
}

function checkLeaf(key: string, leaf: SettingLeaf<unknown>, value: unknown): void {
  if (!leaf.kind.check(value)) {
    throw new SettingsError("invalidValue", `${key} must be ${leaf.kind.description}, got ${JSON.stringify(value)}`, { key });
  }
}

function refuseGroupValue(key: string): never {
  throw new SettingsError("invalidValue", `${key} is a group of settings and takes an object`, { key });
}

/** Known settings inside an object written at a group's key must have their types too. */
function checkAgainstCatalogue(segments: readonly string[], value: unknown): void {
  const key = segments.join(".");
  const { node, below } = catalogueNode(segments);
  if (below !== undefined) {
    throw new SettingsError("invalidKey", `${below} is a single setting; ${key} does not exist below it`, { key });
  }
  if (node === undefined) return;
  if (node instanceof SettingLeaf) return checkLeaf(key, node, value);
  if (!isPlainObject(value)) refuseGroupValue(key);
  for (const name of Object.keys(value)) checkAgainstCatalogue([...segments, name], value[name]);
}

/** Writes use canonical names only, so a file never gains a key that migrations would move again. */
function refuseLegacyKeys(segments: readonly string[], value: unknown): void {
  forEachLeaf(value, segments.join("."), (leafKey) => {
    for (let key = leafKey; key !== ""; key = key.slice(0, Math.max(0, key.lastIndexOf(".")))) {
      const canonical = canonicalKeyOf(key);
      if (canonical !== undefined) throw new SettingsError("invalidKey", `${key} is an old name; write ${canonical} instead`, { key });
    }
  });
}

/** Checks one `writeSetting` edit before it waits for the file; `null` deletes and always passes. */
export function validateWrite(segments: readonly string[], value: unknown): void {
  if (value === null) return;
  checkJsonData(value, segments.join("."), false);
  refuseLegacyKeys(segments, value);
  checkAgainstCatalogue(segments, value);
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

function checkChangedKnown(group: SettingGroup, before: SettingsObject, after: SettingsObject, prefix: string): void {
  for (const [name, node] of Object.entries(group)) {
    if (!Object.hasOwn(after, name)) continue;
    const key = prefix === "" ? name : `${prefix}.${name}`;
    const now = after[name];
    const unchanged = Object.hasOwn(before, name) && same(before[name], now);
    if (node instanceof SettingLeaf) {
      if (!unchanged) checkLeaf(key, node, now);
    } else if (!isPlainObject(now)) {
      if (!unchanged) refuseGroupValue(key);
    } else {
      const then = before[name];
      checkChangedKnown(node, isPlainObject(then) && Object.hasOwn(before, name) ? then : {}, now, key);
    }
  }
}

/**
 * Checks what a code-side mutation changed: each known setting it set or
 * altered must have its type, and no legacy key may come back (migrations ran
 * before the mutation, so any legacy key now present is new). Values that
 * were already wrong in the file and were left alone do not block the edit.
 */
export function validateChanges(before: SettingsObject, after: SettingsObject): void {
  checkJsonData(after, "settings", true);
  checkChangedKnown(SETTINGS_CATALOGUE, before, after, "");
  for (const { from, to } of SETTING_MIGRATIONS) {
    if (getPath(after, from.split(".")).found) throw new SettingsError("invalidKey", `${from} is an old name; write ${to} instead`, { key: from });
  }
}
