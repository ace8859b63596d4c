import { type EffectiveSettings, settingsDefaults } from "./catalogue.js";
import { computeEffective } from "./effective.js";
import { SettingsError } from "./errors.js";
import { NO_VERSION, readJsonFile } from "@knightcode/system/fs/json-file";
import { isPlainObject, type SettingsObject } from "./keys.js";
import { mergeScopes } from "./merge.js";
import { migrateSettings } from "./migrations.js";
import { globalSettingsPath, isTrusted, projectSettingsPath, type SettingsScope, type TrustInput } from "./scope.js";
import type { Warning } from "@knightcode/system/warning";

/** What one scope's file held at the moment it was read. */
export interface ScopeRead {
  scope: SettingsScope;
  path: string;
  /** SHA-256 hex of the bytes parsed, or "none" when absent or not read. */
  version: string;
  /** absent: no file; loaded: parsed (blank counts as empty); corrupt: not a JSON object; untrusted: not read. */
  state: "absent" | "loaded" | "corrupt" | "untrusted";
  /** The file's settings with legacy keys moved in memory; empty unless loaded. */
  settings: SettingsObject;
  warning?: Warning;
}

export interface ReadSettingsOptions {
  agentDir: string;
  /** The project folder; without it only global settings are read. */
  cwd?: string;
  /** The project's trust; only an explicit true reads the project file. Defaults to undecided. */
  trust?: TrustInput;
}

export interface SettingsSnapshot {
  /** Raw merged values, unknown keys included, legacy keys migrated. */
  settings: SettingsObject;
  /** Every known setting with its type checked and its default applied. */
  effective: EffectiveSettings;
  defaults: EffectiveSettings;
  origins: Record<string, SettingsScope>;
  versions: { global: string; project?: string };
  paths: { global: string; project?: string };
  /** Parse errors and type mismatches, as warnings. */
  errors: Warning[];
  /** Each scope on its own, for features (resource loading) that must not merge them. */
  scopes: { global: ScopeRead; project?: ScopeRead };
}

function corrupt(scope: SettingsScope, path: string, version: string, warning: Warning): ScopeRead {
  return { scope, path, version, state: "corrupt", settings: {}, warning };
}

/**
 * Reads one scope's file once, as it is on disk (no migration): content,
 * version and warning come from the same bytes; `text` is what a writer
 * edits to keep the user's formatting.
 */
export function loadSettingsFile(scope: SettingsScope, path: string): ScopeRead & { text?: string } {
  let file;
  try {
    file = readJsonFile(path);
  } catch (error) {
    throw new SettingsError("io", `cannot read ${path}: ${(error as Error).message}`, { path }, { cause: error });
  }
  if (!file.exists) return { scope, path, version: NO_VERSION, state: "absent", settings: {} };
  if (file.syntax !== undefined) {
    const { message, line, column } = file.syntax;
    const warning: Warning = { message: `${path} is not valid JSON: ${message}; its settings are ignored until it is fixed`, source: "settings", path };
    if (line !== undefined) Object.assign(warning, { line, column });
    return corrupt(scope, path, file.version, warning);
  }
  if (file.value !== undefined && !isPlainObject(file.value)) {
    const warning: Warning = { message: `${path} must hold a JSON object; its settings are ignored until it is fixed`, source: "settings", path };
    return corrupt(scope, path, file.version, warning);
  }
  return {
    scope,
    path,
    version: file.version,
    state: "loaded",
    settings: (file.value ?? {}) as SettingsObject,
    ...(file.text === undefined ? {} : { text: file.text }),
  };
}

/** One scope's settings as the engine uses them: legacy keys moved in memory. */
export function readSettingsScope(scope: SettingsScope, path: string): ScopeRead {
  const { text: _text, ...read } = loadSettingsFile(scope, path);
  migrateSettings(read.settings);
  return read;
}

/** Global settings, with a trusted project's settings merged over them. */
export function readSettings(options: ReadSettingsOptions): SettingsSnapshot {
  const global = readSettingsScope("global", globalSettingsPath(options.agentDir));
  let project: ScopeRead | undefined;
  if (options.cwd !== undefined) {
    const path = projectSettingsPath(options.cwd);
    project = isTrusted(options.trust, options.cwd)
      ? readSettingsScope("project", path)
      : { scope: "project", path, version: NO_VERSION, state: "untrusted", settings: {} };
  }
  const read = project === undefined ? [global] : [global, project];
  const merged = mergeScopes(read);
  const paths = project === undefined ? { global: global.path } : { global: global.path, project: project.path };
  const { effective, warnings } = computeEffective({ ...merged, globalSettings: global.settings, paths });
  return {
    settings: merged.settings,
    effective,
    defaults: settingsDefaults(),
    origins: merged.origins,
    versions: project === undefined ? { global: global.version } : { global: global.version, project: project.version },
    paths,
    errors: [...read.flatMap((scope) => (scope.warning ? [scope.warning] : [])), ...warnings],
    scopes: project === undefined ? { global } : { global, project },
  };
}
