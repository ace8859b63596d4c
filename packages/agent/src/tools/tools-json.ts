import { join } from "node:path";
import { NO_VERSION, readJsonFile } from "@knightcode/system/fs/json-file";
import type { ModelRef } from "../models/registry.js";
import { isPlainObject } from "../settings/keys.js";
import { checker } from "@knightcode/schema/problems";
import {
  ClassifierGateEntry,
  ClassifiersSwitch,
  DEFAULT_CLASSIFIER_TIMEOUT_MS,
  MAX_CLASSIFIER_INSTRUCTIONS,
  MAX_CLASSIFIER_TIMEOUT_MS,
  ToolEntry,
  ToolsSection,
} from "@knightcode/schema/tools-file";
import type { Warning } from "@knightcode/system/warning";

export const TOOLS_FILE_NAME = "tools.json";
export { DEFAULT_CLASSIFIER_TIMEOUT_MS, MAX_CLASSIFIER_INSTRUCTIONS, MAX_CLASSIFIER_TIMEOUT_MS };

/** The classifier gate as `classifiers.gate` configures it. */
export interface ClassifierGateConfig {
  model: ModelRef;
  /** The user's own policy, added to ours. */
  instructions?: string;
  timeoutMs: number;
}

/**
 * Whether the classifier gate judges calls. `broken` is a gate that was, or
 * may have been, switched on but cannot judge (a file that does not parse, a
 * malformed entry, an unknown model): it fails closed, so every call it
 * would have judged needs the user's confirmation, with `reason` saying why.
 */
export type ClassifierGateSetting = { state: "off" } | { state: "on"; config: ClassifierGateConfig } | { state: "broken"; reason: string };

/** One read of `<agentDir>/tools.json`. */
export interface ToolsFile {
  path: string;
  exists: boolean;
  /** SHA-256 hex of the bytes read, or "none". */
  version: string;
  /** The whole file when it holds a JSON object. */
  value?: Record<string, unknown>;
  gate: ClassifierGateSetting;
  warnings: Warning[];
}

const toolsSection = checker(ToolsSection);
const toolEntryShape = checker(ToolEntry);
const classifiersSwitch = checker(ClassifiersSwitch);
const gateEntry = checker(ClassifierGateEntry);
/** Keys of a gate entry that are none of its settings are a warning, not a break: the schema is open for that. */
const GATE_KEYS: ReadonlySet<string> = new Set(Object.keys(ClassifierGateEntry.properties));

export function toolsFilePath(agentDir: string): string {
  return join(agentDir, TOOLS_FILE_NAME);
}

/**
 * Reads the tool settings file. A missing file is an empty one. A file that
 * cannot be read or parsed gives a warning and leaves the classifier gate
 * broken rather than off: it may be the file that switched the gate on.
 */
export function readToolsFile(agentDir: string): ToolsFile {
  const path = toolsFilePath(agentDir);
  const broken = (version: string, message: string, where: { line?: number; column?: number } = {}): ToolsFile => {
    const warning: Warning = {
      message: `${path} ${message}; until it is fixed, the classifier gate asks you about every call it would judge`,
      source: "settings",
      path,
      ...where,
    };
    return { path, exists: true, version, gate: { state: "broken", reason: `${path} ${message}` }, warnings: [warning] };
  };
  let file;
  try {
    file = readJsonFile(path);
  } catch (error) {
    return broken(NO_VERSION, `cannot be read: ${(error as Error).message}`);
  }
  if (!file.exists) return { path, exists: false, version: NO_VERSION, gate: { state: "off" }, warnings: [] };
  if (file.syntax) {
    const { message, line, column } = file.syntax;
    return broken(file.version, `is not valid JSON: ${message}`, line === undefined ? {} : { line, column });
  }
  if (file.value === undefined) return { path, exists: true, version: file.version, value: {}, gate: { state: "off" }, warnings: [] };
  if (!isPlainObject(file.value)) return broken(file.version, "must hold a JSON object");
  const { gate, warnings } = parseClassifierGate(file.value.classifiers, path);
  warnings.push(...checkToolsSection(file.value.tools, path));
  return { path, exists: true, version: file.version, value: file.value, gate, warnings };
}

/**
 * Checks the shape of `tools`, where our own tools keep their settings. A
 * part that cannot be understood leaves the tools it holds at their
 * defaults, with a warning: a tool that is off by default stays off.
 */
function checkToolsSection(tools: unknown, path: string): Warning[] {
  const warn = (what: string): Warning => ({
    message: `${path}: ${what}; until it is fixed, the tools it configures keep their defaults`,
    source: "settings",
    path,
  });
  if (tools === undefined) return [];
  const section = toolsSection.read(tools, "tools");
  if (!section.ok) return [warn(section.problem)];
  return Object.entries(section.value).flatMap(([name, entry]) => {
    const problem = toolEntryShape.problem(entry, `tools.${name}`);
    return problem === undefined ? [] : [warn(problem)];
  });
}

/**
 * A tool's own entry in `tools`, when the file holds a well-formed one;
 * undefined when the file, `tools` or the entry cannot be read (the tool
 * then keeps its defaults).
 */
export function toolEntry(file: ToolsFile, name: string): Record<string, unknown> | undefined {
  const tools = file.value?.tools;
  if (!isPlainObject(tools) || !Object.hasOwn(tools, name)) return undefined;
  const entry = tools[name];
  return isPlainObject(entry) ? entry : undefined;
}

/** Whether the file switches one of our tools on: its `enabled`, else `defaultEnabled`. */
export function toolEnabled(file: ToolsFile, name: string, defaultEnabled: boolean): boolean {
  const enabled = toolEntry(file, name)?.enabled;
  return typeof enabled === "boolean" ? enabled : defaultEnabled;
}

/**
 * Checks `classifiers` as the file holds it. Only `enabled: true` switches
 * the gate on, and only then is the rest required; an entry that cannot be
 * understood breaks the gate with a warning. Unknown keys in an enabled
 * entry are a warning only (a misspelt `instructions` would otherwise
 * vanish unseen).
 */
export function parseClassifierGate(classifiers: unknown, path: string): { gate: ClassifierGateSetting; warnings: Warning[] } {
  const broken = (what: string) => {
    const reason = `${path}: ${what}`;
    const warning: Warning = {
      message: `${reason}; until it is fixed, the classifier gate asks you about every call it would judge`,
      source: "settings",
      path,
    };
    return { gate: { state: "broken" as const, reason }, warnings: [warning] };
  };
  if (classifiers === undefined) return { gate: { state: "off" }, warnings: [] };
  const switched = classifiersSwitch.read(classifiers, "classifiers");
  if (!switched.ok) return broken(switched.problem);
  if (switched.value.gate?.enabled !== true) return { gate: { state: "off" }, warnings: [] };
  const read = gateEntry.read(switched.value.gate, "classifiers.gate");
  if (!read.ok) return broken(read.problem);
  const entry = read.value;
  const { model, instructions } = entry;
  const timeoutMs = entry.timeoutMs ?? DEFAULT_CLASSIFIER_TIMEOUT_MS;
  const warnings: Warning[] = Object.keys(entry)
    .filter((key) => !GATE_KEYS.has(key))
    .map((key): Warning => ({ message: `${path}: classifiers.gate.${key} is not a classifier setting and is ignored`, source: "settings", path }));
  const config: ClassifierGateConfig = {
    model: { provider: model.provider, id: model.id },
    ...(instructions !== undefined && instructions.trim() !== "" ? { instructions } : {}),
    timeoutMs,
  };
  return { gate: { state: "on", config }, warnings };
}
