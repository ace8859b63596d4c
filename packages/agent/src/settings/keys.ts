import { SettingsError } from "./errors.js";

/** A JSON object as read from a settings file. */
export type SettingsObject = { [key: string]: unknown };

/** Segments that would reach an object's prototype if used as property names. */
export const FORBIDDEN_SEGMENTS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

const SEGMENT = /^[A-Za-z0-9_$@/:-]+$/;
const MAX_KEY_LENGTH = 512;
const MAX_SEGMENTS = 32;

export function isPlainObject(value: unknown): value is SettingsObject {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Defines an own property even for names such as `__proto__`, which plain assignment would treat as the prototype. */
export function setOwn(target: SettingsObject, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Splits and checks a dotted key; every segment is non-empty, plain, and never a prototype name. */
export function parseKey(key: unknown): string[] {
  if (typeof key !== "string" || key.length === 0) throw new SettingsError("invalidKey", "key must be a non-empty dotted string", {});
  if (key.length > MAX_KEY_LENGTH) throw new SettingsError("invalidKey", `key is longer than ${MAX_KEY_LENGTH} characters`, { key });
  const segments = key.split(".");
  if (segments.length > MAX_SEGMENTS) throw new SettingsError("invalidKey", `key has more than ${MAX_SEGMENTS} segments`, { key });
  for (const segment of segments) {
    if (segment === "") throw new SettingsError("invalidKey", `key ${JSON.stringify(key)} has an empty segment`, { key });
    if (FORBIDDEN_SEGMENTS.has(segment)) {
      throw new SettingsError("invalidKey", `key ${JSON.stringify(key)} uses the forbidden segment ${JSON.stringify(segment)}`, { key });
    }
    if (!SEGMENT.test(segment)) {
      throw new SettingsError("invalidKey", `key segment ${JSON.stringify(segment)} may only hold letters, digits and _ $ @ / : -`, { key });
    }
  }
  return segments;
}

export interface PathLookup {
  found: boolean;
  value?: unknown;
  /** Dotted prefix holding a non-object where the path needed an object. */
  blockedAt?: string;
}

/** Follows own properties only, so inherited names never resolve. */
export function getPath(doc: SettingsObject, segments: readonly string[]): PathLookup {
  let node: unknown = doc;
  for (let i = 0; i < segments.length; i++) {
    if (!isPlainObject(node)) return { found: false, blockedAt: segments.slice(0, i).join(".") };
    if (!Object.hasOwn(node, segments[i]!)) return { found: false };
    node = node[segments[i]!];
  }
  return { found: true, value: node };
}

/** Sets a value, creating missing objects on the way; returns the blocking prefix instead of overwriting a non-object. */
export function setPath(doc: SettingsObject, segments: readonly string[], value: unknown): { blockedAt?: string } {
  let node = doc;
  for (let i = 0; i < segments.length - 1; i++) {
    const segment = segments[i]!;
    if (!Object.hasOwn(node, segment)) setOwn(node, segment, {});
    const next = node[segment];
    if (!isPlainObject(next)) return { blockedAt: segments.slice(0, i + 1).join(".") };
    node = next;
  }
  setOwn(node, segments.at(-1)!, value);
  return {};
}

/** Deletes a leaf and then every parent object the deletion left empty; true when something was removed. */
export function deletePath(doc: SettingsObject, segments: readonly string[]): boolean {
  const chain: SettingsObject[] = [doc];
  for (const segment of segments.slice(0, -1)) {
    const next = Object.hasOwn(chain.at(-1)!, segment) ? chain.at(-1)![segment] : undefined;
    if (!isPlainObject(next)) return false;
    chain.push(next);
  }
  const last = segments.at(-1)!;
  if (!Object.hasOwn(chain.at(-1)!, last)) return false;
  delete chain.at(-1)![last];
  for (let i = chain.length - 1; i > 0 && Object.keys(chain[i]!).length === 0; i--) delete chain[i - 1]![segments[i - 1]!];
  return true;
}

/** Deep copy of JSON data that keeps every own key, `__proto__` included, as a plain property. */
export function cloneJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item: unknown) => cloneJson(item)) as T;
  if (!isPlainObject(value)) return value;
  const out: SettingsObject = {};
  for (const key of Object.keys(value)) setOwn(out, key, cloneJson(value[key]));
  return out as T;
}

/** Calls `visit` for every leaf (a non-object value, arrays included) with its dotted key. */
export function forEachLeaf(value: unknown, prefix: string, visit: (key: string, leaf: unknown) => void): void {
  if (!isPlainObject(value)) {
    visit(prefix, value);
    return;
  }
  for (const key of Object.keys(value)) forEachLeaf(value[key], prefix === "" ? key : `${prefix}.${key}`, visit);
}
