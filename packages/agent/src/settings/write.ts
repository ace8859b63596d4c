import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { isDirectory } from "@knightcode/system/fs/is-directory";
import { writeFileAtomic } from "@knightcode/system/fs/atomic-write";
import { LockHeldError } from "@knightcode/system/fs/file-lock";
import { SettingsError } from "./errors.js";
import { withFileLock } from "@knightcode/system/fs/file-queue";
import { editJsonText } from "@knightcode/system/fs/json-edit";
import { resolveWriteTarget, sha256Hex } from "@knightcode/system/fs/json-file";
import { cloneJson, deletePath, parseKey, type SettingsObject, setPath } from "./keys.js";
import { migrateSettings } from "./migrations.js";
import { loadSettingsFile } from "./read.js";
import { globalSettingsPath, isTrusted, projectSettingsPath, type SettingsScope, type TrustInput } from "./scope.js";
import { validateChanges, validateWrite } from "./validate.js";

export interface SettingsTarget {
  agentDir: string;
  scope: SettingsScope;
  /** Required for the project scope. */
  cwd?: string;
  /** Project writes need an explicit true; defaults to undecided. */
  trust?: TrustInput;
}

export interface EditOptions {
  /** The version the caller last read; a different current version is a `conflict`. */
  expectedVersion?: string;
  signal?: AbortSignal;
}

export interface WriteSettingOptions extends SettingsTarget, EditOptions {
  /** Dotted key, such as `retry.provider.maxRetries`. */
  key: string;
  /** The new value; null deletes the key and prunes parents it leaves empty. */
  value: unknown;
}

/** The file a target names, after the checks that need no file access under the lock. */
function targetFile(target: SettingsTarget): string {
  if (target.scope === "global") return globalSettingsPath(target.agentDir);
  const cwd = target.cwd;
  if (cwd === undefined || cwd === "") {
    throw new SettingsError("missingCwd", "project settings need a cwd", { reason: "missingCwd" });
  }
  if (!isDirectory(cwd)) {
    throw new SettingsError("missingCwd", `${cwd} is not an existing directory`, { reason: "missingCwd", path: cwd });
  }
  if (!isTrusted(target.trust, cwd)) {
    throw new SettingsError("untrusted", `${cwd} is not a trusted project; trust it before writing its settings`, { reason: "untrusted", path: cwd });
  }
  return projectSettingsPath(cwd);
}

/** Failures of the filesystem or the lock become `io`; anything else (ours, an abort, a mutator's throw) passes through. */
function asIoError(error: unknown, path: string): unknown {
  const fromSystem = error instanceof LockHeldError || typeof (error as NodeJS.ErrnoException | undefined)?.syscall === "string";
  if (!fromSystem) return error;
  return new SettingsError("io", `cannot write ${path}: ${(error as Error).message}`, { path }, { cause: error });
}

/** What an edit comes to: the version to answer when nothing changes, or the text to write. */
type EditOutcome = { version: string; text?: undefined } | { text: string };

/** Reads the file, compares the version, migrates and edits; writes nothing. */
function planEdit(scope: SettingsScope, path: string, edit: (doc: SettingsObject) => void, expectedVersion: string | undefined): EditOutcome {
  const current = loadSettingsFile(scope, path);
  if (current.state === "corrupt") {
    throw new SettingsError("corrupt", `${path} is not a valid settings file; fix or remove it by hand, it is never overwritten`, { path });
  }
  if (expectedVersion !== undefined && expectedVersion !== current.version) {
    throw new SettingsError("conflict", `${path} changed since version ${expectedVersion}; read it again`, { version: current.version, path });
  }
  const doc = current.settings;
  const original = JSON.stringify(doc);
  // Before the edit, so that deleting a canonical key cannot bring its legacy alias back to life.
  migrateSettings(doc);
  edit(doc);
  if (JSON.stringify(doc) === original) return { version: current.version };
  return { text: editJsonText(current.text, JSON.parse(original), doc) };
}

/** The edit itself, run with the file to ourselves: read, compare, migrate, edit, write. */
function editLocked(scope: SettingsScope, path: string, edit: (doc: SettingsObject) => void, expectedVersion: string | undefined): { version: string } {
  const outcome = planEdit(scope, path, edit, expectedVersion);
  if (outcome.text === undefined) return outcome;
  writeFileAtomic(path, outcome.text, { durable: true });
  return { version: sha256Hex(outcome.text) };
}

async function editSettingsFile(target: SettingsTarget, edit: (doc: SettingsObject) => void, options: EditOptions): Promise<{ version: string }> {
  const file = targetFile(target);
  try {
    if (!isDirectory(dirname(file))) {
      // The lock file needs the folder. A refused edit, or one that changes nothing, must not leave a
      // folder behind (a project's `.knightcode/` is what makes it ask for trust), so try it first on
      // the missing file; a writer that creates the file meanwhile is met again under the lock.
      const trial = planEdit(target.scope, file, edit, options.expectedVersion);
      if (trial.text === undefined) return trial;
      mkdirSync(dirname(file), { recursive: true });
    }
    const path = resolveWriteTarget(file);
    return await withFileLock(path, { purpose: "settings", signal: options.signal }, () => editLocked(target.scope, path, edit, options.expectedVersion));
  } catch (error) {
    throw asIoError(error, file);
  }
}

/** Sets (or, with null, deletes) one dotted key in one scope's file. */
export async function writeSetting(options: WriteSettingOptions): Promise<{ version: string }> {
  const segments = parseKey(options.key);
  validateWrite(segments, options.value);
  return editSettingsFile(
    options,
    (doc) => {
      if (options.value === null) {
        deletePath(doc, segments);
        return;
      }
      const { blockedAt } = setPath(doc, segments, cloneJson(options.value));
      if (blockedAt !== undefined) {
        throw new SettingsError("invalidKey", `cannot set ${options.key}: ${blockedAt} holds a value that is not an object; delete it first`, {
          key: options.key,
        });
      }
    },
    options,
  );
}

/**
 * The setter for code: `mutate` edits the scope's file content in place
 * (legacy keys already migrated), under the same queue and lock as
 * `writeSetting`. Known settings it changes are type-checked; a throw from
 * `mutate` leaves the file untouched. When the file's folder does not exist
 * yet, `mutate` first runs on a trial copy, so it should only edit what it
 * is given.
 */
export async function updateSettings(
  target: SettingsTarget,
  mutate: (settings: SettingsObject) => void,
  options: EditOptions = {},
): Promise<{ version: string }> {
  return editSettingsFile(
    target,
    (doc) => {
      const before = cloneJson(doc);
      mutate(doc);
      validateChanges(before, doc);
    },
    options,
  );
}
