import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { type JsonSyntaxError, parseJsonText } from "./json-text.js";
import { readRegularFileSync } from "./regular-file.js";

/** The version of a file that does not exist, or of a scope that was not read. */
export const NO_VERSION = "none";

export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/**
 * One read of a JSON file. `version` is the hash of exactly the bytes that
 * were parsed, so a caller never pairs content with another read's version.
 */
export interface JsonFileRead {
  exists: boolean;
  version: string;
  /** The parsed value; undefined for an absent or blank file, or when it did not parse. */
  value?: unknown;
  /** The text that was parsed (without a byte order mark), for a writer that keeps the user's formatting. */
  text?: string;
  syntax?: JsonSyntaxError;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Reads and parses a JSON file; a missing file (or missing folder) is not an
 * error, other failures throw. A FIFO or a device in the file's place is
 * refused (NotRegularFileError) rather than read, which would block the
 * process until a writer came.
 */
export function readJsonFile(path: string): JsonFileRead {
  let bytes: Buffer;
  try {
    bytes = readRegularFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { exists: false, version: NO_VERSION };
    throw error;
  }
  const version = sha256Hex(bytes);
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { exists: true, version, syntax: { message: "the file is not valid UTF-8" } };
  }
  // An editor's byte order mark is not JSON, but it is not damage either.
  if (text.startsWith("\uFEFF")) text = text.slice(1);
  if (text.trim() === "") return { exists: true, version };
  const parsed = parseJsonText(text);
  return parsed.ok ? { exists: true, version, value: parsed.value, text } : { exists: true, version, syntax: parsed.error };
}

/** Two-space JSON with a trailing newline: the one format every writer here uses. */
export function formatJson(value: unknown): string {
  return JSON.stringify(value, null, 2) + "\n";
}

/**
 * The file a write should replace: a symlinked settings file (dotfile
 * managers do this) is written through to its target rather than replaced by
 * a regular file, and the folder is resolved so every spelling of a path
 * shares one lock.
 */
export function resolveWriteTarget(path: string): string {
  try {
    return realpathSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    return join(realpathSync(dirname(path)), basename(path));
  }
}
