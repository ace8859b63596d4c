import { SETTINGS_SCHEMA } from "@knightcode/schema/generated/settings";
import type { Settings } from "@knightcode/schema/settings";
import { GLOBAL_ONLY_SETTINGS } from "@knightcode/schema/settings-scopes";
import type { Schema } from "@knightcode/schema/validate";
import type { ApprovalMode, ThinkingLevel } from "@knightcode/schema/threads";
import { type Kind, kindOf } from "./kinds.js";

/** One known setting: what it accepts, what unset means, and a line for the docs. */
export class SettingLeaf<T> {
  constructor(
    readonly kind: Kind<T>,
    readonly defaultValue: T,
    readonly description: string,
    /** Only the global settings may set it: a project's value is ignored, with a warning. */
    readonly globalOnly = false,
  ) {}
}

export interface SettingGroup {
  readonly [key: string]: SettingLeaf<unknown> | SettingGroup;
}

export type { ApprovalMode, ThinkingLevel };

interface SchemaNode {
  type?: string;
  properties?: Record<string, Schema>;
  default?: unknown;
  description?: string;
}

/** The catalogue as a tree of leaves, read off the settings schema: an object schema is a group, anything else a setting. */
function catalogueOf(schema: Schema, prefix: readonly string[]): SettingGroup {
  const group: Record<string, SettingLeaf<unknown> | SettingGroup> = {};
  for (const [name, child] of Object.entries((schema as SchemaNode).properties ?? {})) {
    const segments = [...prefix, name];
    const node = child as SchemaNode;
    group[name] =
      node.type === "object"
        ? catalogueOf(child, segments)
        : new SettingLeaf(kindOf(child), node.default, node.description ?? "", GLOBAL_ONLY_SETTINGS.has(segments.join(".")));
  }
  return group;
}

/**
 * Every setting KnightCode itself reads, from the settings schema. Unknown
 * keys in a file are kept untouched (extensions store their own); only
 * these are type-checked.
 */
export const SETTINGS_CATALOGUE: SettingGroup = catalogueOf(SETTINGS_SCHEMA, []);

export type EffectiveSettings = Settings;

export interface CatalogueEntry {
  /** Dotted key, such as `retry.provider.maxRetries`. */
  key: string;
  segments: readonly string[];
  leaf: SettingLeaf<unknown>;
}

function collect(group: SettingGroup, prefix: readonly string[], out: CatalogueEntry[]): CatalogueEntry[] {
  for (const [name, node] of Object.entries(group)) {
    const segments = [...prefix, name];
    if (node instanceof SettingLeaf) out.push({ key: segments.join("."), segments, leaf: node });
    else collect(node, segments, out);
  }
  return out;
}

/** Every known leaf in catalogue order. */
export const CATALOGUE_ENTRIES: readonly CatalogueEntry[] = collect(SETTINGS_CATALOGUE, [], []);

/** What each unset setting means, in the shape of the settings; a fresh copy each call. */
export function settingsDefaults(): EffectiveSettings {
  const out: Record<string, unknown> = {};
  for (const { segments, leaf } of CATALOGUE_ENTRIES) {
    let node = out;
    for (const segment of segments.slice(0, -1)) node = (node[segment] ??= {}) as Record<string, unknown>;
    node[segments.at(-1)!] = structuredClone(leaf.defaultValue);
  }
  return out as EffectiveSettings;
}

/** The catalogue node at a key: a leaf, a group, or nothing known. `below` names a leaf the key descends into. */
export function catalogueNode(segments: readonly string[]): { node?: SettingLeaf<unknown> | SettingGroup; below?: string } {
  let node: SettingLeaf<unknown> | SettingGroup = SETTINGS_CATALOGUE;
  for (let i = 0; i < segments.length; i++) {
    if (node instanceof SettingLeaf) return { below: segments.slice(0, i).join(".") };
    if (!Object.hasOwn(node, segments[i]!)) return {};
    node = node[segments[i]!]!;
  }
  return { node };
}
