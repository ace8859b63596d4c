import { mkdirSync } from "node:fs";
import { writeFileAtomic } from "@knightcode/system/fs/atomic-write";
import { LockHeldError } from "@knightcode/system/fs/file-lock";
import { withFileLock } from "@knightcode/system/fs/file-queue";
import { editJsonText } from "@knightcode/system/fs/json-edit";
import { readJsonFile, resolveWriteTarget } from "@knightcode/system/fs/json-file";
import { deletePath, FORBIDDEN_SEGMENTS, isPlainObject, setPath, type SettingsObject } from "../settings/keys.js";
import { isSecretKey, MANAGED_ENTRIES, managedEntry, maskSecret, type ManagedEntry } from "./managed-tools.js";
import { toolsFilePath } from "./tools-json.js";
import type { ToolSettingsEntry } from "@knightcode/schema/tools";

export type ToolSettingsErrorCode =
  /** A name `tool/settings` does not manage. */
  | "unknownTool"
  /** A malformed key, or one the entry does not have. */
  | "invalidKey"
  /** A value of the wrong type, or one the key refuses. */
  | "invalidValue"
  /** tools.json cannot be understood; it is never overwritten. */
  | "corrupt"
  /** Reading, locking or writing the file failed. */
  | "io";

/** The one error of the tool settings; the server maps `code` to a protocol error. */
export class ToolSettingsError extends Error {
  override readonly name = "ToolSettingsError";

  constructor(
    readonly code: ToolSettingsErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** One managed entry as `tool/settings/read` shows it. */
export type { ToolSettingsEntry };

export interface WriteToolSettingOptions {
  agentDir: string;
  name: string;
  key: string;
  /** `enabled` takes a boolean, every other key a string; null deletes the key. */
  value: string | boolean | null;
  signal?: AbortSignal;
}

const KEY_PATTERN = /^[A-Za-z][A-Za-z0-9_]*$/;
const MAX_KEY_LENGTH = 64;

/**
 * tools.json as an object we may edit. A file that is not JSON, not an
 * object, or whose `tools` or `classifiers` (or an entry in them) is not an
 * object, is `corrupt`: a write would have to guess, and the broken file
 * may be the one that switched the classifier gate on.
 */
function loadDocument(path: string): { doc: SettingsObject; text?: string } {
  let file;
  try {
    file = readJsonFile(path);
  } catch (error) {
    throw new ToolSettingsError("io", `cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
  const corrupt = (what: string) => new ToolSettingsError("corrupt", `${path} ${what}; fix or remove it by hand, it is never overwritten`);
  if (file.syntax) {
    const { message, line, column } = file.syntax;
    throw corrupt(`is not valid JSON (${message}${line === undefined ? "" : ` at line ${line}, column ${column}`})`);
  }
  if (file.value === undefined) return { doc: {} };
  if (!isPlainObject(file.value)) throw corrupt("must hold a JSON object");
  for (const {
    path: [section, name],
  } of MANAGED_ENTRIES) {
    const holder = file.value[section];
    if (holder === undefined) continue;
    if (!isPlainObject(holder)) throw corrupt(`holds a ${section} that is not an object`);
    if (Object.hasOwn(holder, name) && !isPlainObject(holder[name])) throw corrupt(`holds a ${section}.${name} that is not an object`);
  }
  return { doc: file.value, ...(file.text === undefined ? {} : { text: file.text }) };
}

function storedEntry(doc: SettingsObject, entry: ManagedEntry): SettingsObject {
  const [section, name] = entry.path;
  const holder = doc[section];
  const stored = isPlainObject(holder) && Object.hasOwn(holder, name) ? holder[name] : undefined;
  return isPlainObject(stored) ? stored : {};
}

/** Every managed entry with its state and settings, from one read of tools.json. */
export function readToolSettings(agentDir: string): ToolSettingsEntry[] {
  const { doc } = loadDocument(toolsFilePath(agentDir));
  return MANAGED_ENTRIES.map((entry) => {
    const stored = storedEntry(doc, entry);
    const settings: Record<string, string> = {};
    for (const [key, rule] of Object.entries(entry.keys)) {
      const shown = Object.hasOwn(stored, key) ? rule.show(stored[key]) : undefined;
      if (shown !== undefined) settings[key] = isSecretKey(key) ? maskSecret(shown) : shown;
    }
    return { name: entry.name, enabled: typeof stored.enabled === "boolean" ? stored.enabled : entry.defaultEnabled, settings };
  });
}

function checkKey(entry: ManagedEntry, key: string): void {
  const refuse = (why: string) => new ToolSettingsError("invalidKey", `key ${JSON.stringify(key)} ${why}`);
  if (key === "") throw refuse("is empty");
  if (key.length > MAX_KEY_LENGTH) throw refuse(`is longer than ${MAX_KEY_LENGTH} characters`);
  if (FORBIDDEN_SEGMENTS.has(key)) throw refuse("is a forbidden name");
  if (key.includes(".")) throw refuse("is dotted; a key names one setting of the entry");
  if (!KEY_PATTERN.test(key)) throw refuse("may only hold letters, digits and _, starting with a letter");
  if (key !== "enabled" && !Object.hasOwn(entry.keys, key)) {
    throw refuse(`is not a setting of ${entry.name}; its settings are ${["enabled", ...Object.keys(entry.keys)].join(", ")}`);
  }
}

/** What the file should hold at the key: undefined deletes it. */
function storedValue(entry: ManagedEntry, key: string, value: string | boolean | null): unknown {
  if (value === null) return undefined;
  const where = `${entry.name} ${key}`;
  if (key === "enabled") {
    if (typeof value !== "boolean") throw new ToolSettingsError("invalidValue", `${where} takes true, false or null`);
    return value;
  }
  if (typeof value !== "string") throw new ToolSettingsError("invalidValue", `${where} takes a string or null`);
  try {
    return entry.keys[key]!.store(value);
  } catch (error) {
    throw new ToolSettingsError("invalidValue", `${where} ${(error as Error).message}`);
  }
}

/** Failures of the filesystem or the lock become `io`; ours pass through. */
function asIoError(error: unknown, path: string): unknown {
  const fromSystem = error instanceof LockHeldError || typeof (error as NodeJS.ErrnoException | undefined)?.syscall === "string";
  if (!fromSystem) return error;
  return new ToolSettingsError("io", `cannot write ${path}: ${(error as Error).message}`, { cause: error });
}

/**
 * Sets (or, with null, deletes) one setting of one managed entry, under
 * the per-file queue and cross-process lock every settings writer uses. The
 * file is replaced in one step and left readable by its owner only (0600):
 * it holds API keys. Deleting the last setting of an entry removes the
 * entry, and an emptied section with it.
 */
export async function writeToolSetting(options: WriteToolSettingOptions): Promise<void> {
  const entry = managedEntry(options.name);
  if (!entry) {
    const names = MANAGED_ENTRIES.map((e) => e.name).join(" and ");
    throw new ToolSettingsError(
      "unknownTool",
      `${JSON.stringify(options.name)} is not managed in tools.json (it manages ${names}); built-in tools are chosen with the defaultTools setting`,
    );
  }
  checkKey(entry, options.key);
  const value = storedValue(entry, options.key, options.value);
  const file = toolsFilePath(options.agentDir);
  try {
    mkdirSync(options.agentDir, { recursive: true, mode: 0o700 });
    const path = resolveWriteTarget(file);
    await withFileLock(path, { purpose: "tools", ...(options.signal ? { signal: options.signal } : {}) }, () => {
      const { doc, text } = loadDocument(path);
      const before = JSON.stringify(doc);
      const segments = [...entry.path, options.key];
      if (value === undefined) deletePath(doc, segments);
      else setPath(doc, segments, value);
      if (JSON.stringify(doc) === before) return;
      writeFileAtomic(path, editJsonText(text, JSON.parse(before), doc), { mode: 0o600, keepExistingMode: false, durable: true });
    });
  } catch (error) {
    throw asIoError(error, file);
  }
}
