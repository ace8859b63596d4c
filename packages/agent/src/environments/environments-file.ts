import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { isDirectory } from "@knightcode/system/fs/is-directory";
import { writeFileAtomic } from "@knightcode/system/fs/atomic-write";
import { LockHeldError } from "@knightcode/system/fs/file-lock";
import { withFileLock } from "@knightcode/system/fs/file-queue";
import { editJsonText } from "@knightcode/system/fs/json-edit";
import { readJsonFile, resolveWriteTarget, sha256Hex } from "@knightcode/system/fs/json-file";
import { checker } from "@knightcode/schema/problems";
import { EnvironmentList, EnvironmentsFileShape, MAX_ENVIRONMENTS, SCRIPT_PLATFORMS } from "@knightcode/schema/environments-file";
import { isTrusted, PROJECT_CONFIG_DIR, type TrustInput } from "../settings/scope.js";
import type { Environment, EnvironmentScripts } from "@knightcode/schema/environments";

export const ENVIRONMENTS_FILE = "environments.json";
export { MAX_ENVIRONMENTS, SCRIPT_PLATFORMS };
/** Each script's size in UTF-8 bytes. */
export const MAX_SCRIPT_BYTES = 64 * 1024;

export type { EnvironmentScripts };

/** What a new worktree runs: `setup` once it exists, `cleanup` before it goes. */
export type { Environment };

export type EnvironmentsErrorCode =
  /** A list to save that breaks the rules; nothing was written. */
  | "invalid"
  /** A save for a project that is not explicitly trusted. */
  | "untrusted"
  /** The file is not a valid environments file; it is never overwritten. */
  | "corrupt"
  /** Reading, locking or writing the file failed. */
  | "io";

/** The one error type of environments.json; the server maps `code` to a protocol error. */
export class EnvironmentsError extends Error {
  override readonly name = "EnvironmentsError";

  constructor(
    readonly code: EnvironmentsErrorCode,
    message: string,
    readonly path?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function environmentsPath(cwd: string): string {
  return join(resolve(cwd), PROJECT_CONFIG_DIR, ENVIRONMENTS_FILE);
}

/** The script to run on `platform`: its own when it has one, else the default. */
export function scriptFor(scripts: EnvironmentScripts, platform: NodeJS.Platform = process.platform): string {
  const own = (SCRIPT_PLATFORMS as readonly string[]).includes(platform) ? scripts[platform as (typeof SCRIPT_PLATFORMS)[number]] : undefined;
  return own ?? scripts.default;
}

const list = checker(EnvironmentList);
const fileShape = checker(EnvironmentsFileShape);

/** A script's limit is in UTF-8 bytes, which a schema's string length cannot say. */
function scriptBytesProblem(environments: readonly Environment[], where: string): string | undefined {
  for (const [index, environment] of environments.entries()) {
    for (const part of ["setup", "cleanup"] as const) {
      for (const [key, script] of Object.entries(environment[part] ?? {})) {
        const bytes = Buffer.byteLength(script, "utf8");
        if (bytes > MAX_SCRIPT_BYTES) return `${where}[${index}].${part}.${key} is ${bytes} bytes; a script may hold at most ${MAX_SCRIPT_BYTES}`;
      }
    }
  }
  return undefined;
}

/** Names are unique in the list: a rule across entries. */
function duplicateNameProblem(environments: readonly Environment[], where: string): string | undefined {
  const seen = new Set<string>();
  for (const [index, { name }] of environments.entries()) {
    if (seen.has(name)) return `${where}[${index}].name ${JSON.stringify(name)} is used twice; names must be unique`;
    seen.add(name);
  }
  return undefined;
}

/** What is wrong with a list of environments, in words naming the entry, or undefined when nothing is. */
export function environmentsProblem(value: unknown, where = "environments"): string | undefined {
  const read = list.read(value, where);
  if (!read.ok) return read.problem;
  return scriptBytesProblem(read.value, where) ?? duplicateNameProblem(read.value, where);
}

/** A copy holding only the known keys, in their order, so the file is written the same way each time. */
function canonical(environments: readonly Environment[]): Environment[] {
  const scripts = (s: EnvironmentScripts): EnvironmentScripts => {
    const out: EnvironmentScripts = { default: s.default };
    for (const platform of SCRIPT_PLATFORMS) if (s[platform] !== undefined) out[platform] = s[platform];
    return out;
  };
  return environments.map((e) =>
    e.cleanup === undefined ? { name: e.name, setup: scripts(e.setup) } : { name: e.name, setup: scripts(e.setup), cleanup: scripts(e.cleanup) },
  );
}

export interface EnvironmentsRead {
  path: string;
  exists: boolean;
  environments: Environment[];
  /** SHA-256 of the bytes read, or "none" without a file. */
  version: string;
}

/** The read, with the parsed value and the text a save edits to keep the user's formatting. */
interface LoadedFile {
  read: EnvironmentsRead;
  doc: unknown;
  text?: string;
}

function loadEnvironments(path: string): LoadedFile {
  let file;
  try {
    file = readJsonFile(path);
  } catch (error) {
    throw new EnvironmentsError("io", `cannot read ${path}: ${(error as Error).message}`, path, { cause: error });
  }
  if (!file.exists) return { read: { path, exists: false, environments: [], version: file.version }, doc: {} };
  const broken = (why: string) => new EnvironmentsError("corrupt", `${path} ${why}; fix or remove it by hand, it is never overwritten`, path);
  if (file.syntax !== undefined) {
    const { message, line, column } = file.syntax;
    throw broken(`is not valid JSON (${message}${line === undefined ? "" : ` at line ${line}, column ${column}`})`);
  }
  const doc = fileShape.read(file.value ?? {});
  if (!doc.ok) throw broken(doc.problem);
  const environments = doc.value.environments ?? [];
  const problem = environmentsProblem(environments);
  if (problem !== undefined) throw broken(`is not valid: ${problem}`);
  const read = { path, exists: true, environments: canonical(environments as Environment[]), version: file.version };
  return { read, doc: doc.value, ...(file.text === undefined ? {} : { text: file.text }) };
}

/**
 * A project's `.knightcode/environments.json`, `{"environments": [...]}`:
 * no file (or a blank one) is an empty list; a file that is not JSON, or
 * breaks the rules a save enforces, is `corrupt` and never half read.
 */
export function readEnvironments(cwd: string): EnvironmentsRead {
  return loadEnvironments(environmentsPath(cwd)).read;
}

export interface SaveEnvironmentsOptions {
  cwd: string;
  environments: readonly Environment[];
  /** Only an explicit true allows the save. */
  trust: TrustInput;
  signal?: AbortSignal;
}

/**
 * Replaces a trusted project's whole list at once, under the same per-file
 * queue and cross-process lock as settings. A refused save (an invalid list,
 * an untrusted project, a corrupt file) leaves the file as it was; a save
 * that changes nothing leaves it alone.
 */
export async function saveEnvironments(options: SaveEnvironmentsOptions): Promise<void> {
  const problem = environmentsProblem(options.environments);
  if (problem !== undefined) throw new EnvironmentsError("invalid", problem);
  const file = environmentsPath(options.cwd);
  if (!isTrusted(options.trust, options.cwd)) {
    throw new EnvironmentsError("untrusted", `${resolve(options.cwd)} is not a trusted project; trust it before saving its environments`, file);
  }
  const wanted = { environments: canonical(options.environments) };
  try {
    if (!isDirectory(dirname(file))) mkdirSync(dirname(file), { recursive: true });
    const path = resolveWriteTarget(file);
    await withFileLock(path, { purpose: "environments", signal: options.signal }, () => {
      // Read under the lock: a file broken meanwhile is refused, not replaced.
      const current = loadEnvironments(path);
      const text = editJsonText(current.text, current.doc, wanted);
      if (text === current.text || current.read.version === sha256Hex(text)) return;
      writeFileAtomic(path, text, { durable: true });
    });
  } catch (error) {
    const fromSystem = error instanceof LockHeldError || typeof (error as NodeJS.ErrnoException | undefined)?.syscall === "string";
    if (!fromSystem) throw error;
    throw new EnvironmentsError("io", `cannot write ${file}: ${(error as Error).message}`, file, { cause: error });
  }
}
