import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { ClientError } from "./errors.js";
import { isLoopbackHost, readOwnedFile, sharedFolderProblem, type OwnerOptions } from "./local/owned-paths.js";

/** A ready file is one line of JSON; anything larger is not one. */
const MAX_READY_FILE_BYTES = 4096;

/** What `--listen-ready-file` holds. */
export interface ReadyFile {
  url: string;
  pid: number;
}

/**
 * Reads a `--listen-ready-file` that this user's server wrote: a regular
 * file of ours that nobody else can write, in a folder nobody else can swap,
 * naming a listener on this machine (`ws://` or `http://` on loopback, or
 * `unix://`).
 * Anything else is an `untrusted` ClientError, since another user could
 * have planted it to point this client at a listener of theirs. A file not
 * written yet, or that does not parse, rejects with a plain Error: the next
 * attempt may find it.
 */
export function readReadyFile(path: string, options: OwnerOptions = {}): ReadyFile {
  const untrusted = (why: string) => new ClientError("untrusted", `the ready file ${path} is not used: ${why}`);
  if (!existsSync(dirname(path))) throw new Error(`the ready file ${path} is not there yet: its folder does not exist`);
  const folderProblem = sharedFolderProblem(dirname(path), options);
  if (folderProblem !== undefined) throw untrusted(folderProblem);
  const read = readOwnedFile(path, MAX_READY_FILE_BYTES, options);
  if (!read.ok) {
    if (read.missing) throw new Error(`the ready file ${path} is not there yet`);
    throw untrusted(read.problem);
  }
  let ready: { url?: unknown; pid?: unknown };
  try {
    ready = JSON.parse(read.text) as typeof ready;
  } catch {
    throw new Error(`the ready file ${path} is not JSON yet`);
  }
  if (typeof ready.url !== "string") throw new Error(`the ready file ${path} has no url`);
  const problem = localUrlProblem(ready.url);
  if (problem !== undefined) throw untrusted(problem);
  return { url: ready.url, pid: typeof ready.pid === "number" ? ready.pid : 0 };
}

/** Why `url` is not a listener on this machine; undefined when it is. */
export function localUrlProblem(url: string): string | undefined {
  if (url.startsWith("unix://")) return url.length > "unix://".length ? undefined : "its unix:// URL names no path";
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${JSON.stringify(url)} is not a URL`;
  }
  // http:// is what `knightcode desktop --ready-file` writes: its page and WebSocket share the port.
  if (parsed.protocol !== "ws:" && parsed.protocol !== "http:") return `${url} is not a ws://, http:// or unix:// URL`;
  if (!isLoopbackHost(parsed.hostname)) return `${url} is not on this machine's loopback interface`;
  return undefined;
}
