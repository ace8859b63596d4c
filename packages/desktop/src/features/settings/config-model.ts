import type { ApprovalMode, ClientRequestResult, ThinkingLevel } from "@knightcode/app-server-protocol";

export type ConfigRead = ClientRequestResult<"config/read">;
export type Scope = "global" | "project";

/**
 * config/read answers values and defaults but not the allowed words of the
 * two settings that take one of a few: these follow the protocol's own types,
 * so a change there fails to compile here.
 */
const THINKING: readonly ThinkingLevel[] = ["off", "minimal", "low", "medium", "high", "xhigh"];
const APPROVAL: readonly ApprovalMode[] = ["ask", "autoEdit", "fullAccess"];
const CHOICES: Record<string, readonly string[]> = { defaultThinkingLevel: THINKING, defaultApprovalMode: APPROVAL };

export type SettingKind = "boolean" | "number" | "string" | "nullableString" | "choice" | "list" | "json";

export interface SettingRow {
  key: string;
  kind: SettingKind;
  value: unknown;
  /** global, project, or default when no file sets it. */
  origin: string;
  defaultValue: unknown;
  choices?: readonly string[];
}

/** Dotted leaf keys of a settings object: anything not a plain object is a leaf (arrays too). */
export function leaves(value: unknown, prefix = "", out = new Map<string, unknown>()): Map<string, unknown> {
  if (isObject(value)) {
    for (const [key, inner] of Object.entries(value)) leaves(inner, prefix ? `${prefix}.${key}` : key, out);
  } else if (prefix) {
    out.set(prefix, value);
  }
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Every setting the answer knows (its defaults), then any others the files set, in the answer's order. */
export function settingRows(read: ConfigRead): SettingRow[] {
  const defaults = leaves(read.defaults);
  const set = leaves(read.settings);
  const keys = [...defaults.keys(), ...[...set.keys()].filter((k) => !defaults.has(k))];
  return keys.map((key) => {
    const defaultValue = defaults.get(key);
    const value = set.has(key) ? set.get(key) : defaultValue;
    return { key, value, defaultValue, origin: read.origins[key] ?? "default", kind: kindOf(key, defaultValue ?? value), choices: CHOICES[key] };
  });
}

function kindOf(key: string, sample: unknown): SettingKind {
  if (CHOICES[key]) return "choice";
  if (typeof sample === "boolean") return "boolean";
  if (typeof sample === "number") return "number";
  if (typeof sample === "string") return "string";
  if (sample === null) return "nullableString";
  if (Array.isArray(sample)) return "list";
  return "json";
}

/** Parses what the user typed back into the setting's type; throws a message for the user when it is not. */
export function parseInput(row: SettingRow, text: string): unknown {
  switch (row.kind) {
    case "number": {
      const number = Number(text);
      if (text.trim() === "" || !Number.isFinite(number)) throw new Error(`${row.key} takes a number`);
      return number;
    }
    case "nullableString":
      return text.trim() === "" ? null : text;
    case "list":
      return text
        .split("\n")
        .map((line) => line.trim())
        .filter((line) => line !== "");
    case "json":
      return JSON.parse(text);
    default:
      return text;
  }
}

/** How a value shows in a field. */
export function formatValue(row: SettingRow): string {
  const { value, kind } = row;
  if (kind === "list" && Array.isArray(value)) return value.map(String).join("\n");
  if (value === null || value === undefined) return "";
  if (kind === "json") return JSON.stringify(value);
  return String(value);
}

/** The version config/write's expectedVersion takes for a scope. */
export function versionOf(read: ConfigRead, scope: Scope): string | undefined {
  return scope === "global" ? read.versions.global : read.versions.project;
}
