import { lstatSync, readlinkSync, statfsSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import { isWithin, realTarget } from "@knightcode/system/fs/real-target";
import { isOption, shorten } from "./shell-options.js";
import type { ShellWord } from "./shell-words.js";

/** Whether a program may write the paths it is given, or only reads them. */
export type PathAccess = "read" | "write";

/** What a folder-aware analysis knows of where a command runs. */
export interface ShellFolder {
  /** The thread's folder: the command runs there, relative words resolve against it, and every path it names must stay in it. */
  readonly cwd: string;
  /**
   * Why a path (absolute, links resolved) may never be named under a grant
   * even inside the folder (the agent folder, a secret file, a control
   * place for a write), or undefined.
   */
  protectedReason?(realPath: string, access: PathAccess): string | undefined;
}

/** A command naming more path-like parts than this is refused rather than checked: bounded work. */
const MAX_PARTS = 512;
/** Where open(2) gives up on a chain of links too. */
const MAX_LINKS = 40;
/** The proc file system's magic number in statfs(2). */
const PROC_SUPER_MAGIC = 0x9fa0;
/** Letters and digits: what a cluster of short options (`-rnf`) is made of before an attached value starts. */
const OPTION_LETTER = /^[A-Za-z0-9]$/;

/**
 * Why a command whose words after its prefix are `words` may not run under
 * a grant in `folder`, or undefined. Every part of a word a program may take
 * for a path (the word, the value after `=` or `,`, a value attached to a
 * short option, the path of a `file:` URL) is resolved as the kernel would
 * resolve it from the folder, links followed as far as the path exists; it
 * must stay in the folder, stay out of /proc and not be protected. `/dev/null`
 * alone is always fine. A word that is not a path at all (a pattern, a ref)
 * resolves to a missing name in the folder, which is fine too.
 */
export function namedPathRefusal(words: readonly ShellWord[], folder: ShellFolder, access: PathAccess): string | undefined {
  const parts = new Map<string, string>();
  for (const word of words) {
    if (word.text === "--") continue;
    for (const part of pathParts(word.text)) if (!parts.has(part)) parts.set(part, word.text);
    if (parts.size > MAX_PARTS) return `the command names more than ${MAX_PARTS} path-like parts, too many to check`;
  }
  const root = realTarget(folder.cwd);
  for (const [part, word] of parts) {
    const refusal = refusePath(part, root, folder, access);
    if (refusal !== undefined) return `\`${shorten(word)}\` ${refusal}`;
  }
  return undefined;
}

function refusePath(part: string, root: string, folder: ShellFolder, access: PathAccess): string | undefined {
  const resolved = physicalPath(root, part);
  if (resolved === undefined) return `goes through more than ${MAX_LINKS} symbolic links`;
  const { path, viaProc } = resolved;
  if (path === "/dev/null") return undefined;
  if (viaProc || onProcFileSystem(path)) return "reaches into /proc, where processes keep their environment, command line and memory (and the server its keys)";
  const why = folder.protectedReason?.(path, access);
  if (why !== undefined) return `names ${path}: ${why}`;
  if (!isWithin(root, path)) return `names ${path}, outside the thread's folder ${root}`;
  return undefined;
}

/** The parts of one word a program may read as a path. */
function pathParts(text: string): Set<string> {
  const starts = new Set([0]);
  if (isOption(text)) {
    const dashes = text.startsWith("--") ? 2 : 1;
    starts.add(dashes);
    // A value attached to a short option starts after any run of option letters: `-f/x`, `-rnf/x`.
    if (dashes === 1) for (let at = 2; at < text.length && OPTION_LETTER.test(text[at - 1]!); at++) starts.add(at);
  }
  for (let at = 0; at < text.length; at++) if (text[at] === "=" || text[at] === ",") starts.add(at + 1);
  const parts = new Set<string>();
  for (const start of starts) {
    const comma = text.indexOf(",", start);
    for (const part of comma < 0 ? [text.slice(start)] : [text.slice(start), text.slice(start, comma)]) {
      const path = filePath(part);
      if (path !== "") parts.add(path);
    }
  }
  return parts;
}

/** The path of a `file:` URL (git reads `file:///x` and `file://host/x` as local paths); any other text as it is. */
function filePath(text: string): string {
  const url = /^file:(\/\/[^/]*)?/i.exec(text);
  if (url === null) return text;
  const rest = text.slice(url[0].length);
  return url[1] !== undefined && rest === "" ? "/" : rest;
}

/**
 * Where the kernel takes `path` from the folder `root` (itself resolved):
 * each existing component's link is followed where it stands, so `link/..`
 * leaves from wherever the link points, as open(2) does and `path.resolve`
 * does not. The missing rest is kept as written. `viaProc` says whether the
 * walk passed through /proc (`/proc/self/root/...` lands outside it).
 * Undefined past MAX_LINKS links.
 */
export function physicalPath(root: string, path: string): { path: string; viaProc: boolean } | undefined {
  const pending = path.split("/").reverse();
  let current = isAbsolute(path) ? "/" : root;
  let viaProc = isUnderProc(current);
  let links = 0;
  let missing = false;
  while (pending.length > 0) {
    const part = pending.pop()!;
    if (part === "" || part === ".") continue;
    if (part === "..") {
      current = dirname(current);
      continue;
    }
    const next = join(current, part);
    const target = missing ? undefined : linkAt(next);
    if (target === null) missing = true;
    if (typeof target === "string") {
      if (++links > MAX_LINKS) return undefined;
      pending.push(...target.split("/").reverse());
      if (isAbsolute(target)) current = "/";
    } else {
      current = next;
    }
    viaProc ||= isUnderProc(current);
  }
  return { path: current, viaProc };
}

/** The link's target; undefined for a file or folder; null when nothing is there (or it cannot be seen). */
function linkAt(path: string): string | undefined | null {
  try {
    const stats = lstatSync(path, { throwIfNoEntry: false });
    if (stats === undefined) return null;
    return stats.isSymbolicLink() ? readlinkSync(path) : undefined;
  } catch {
    return null;
  }
}

const isUnderProc = (path: string): boolean => path === "/proc" || path.startsWith("/proc/");

/** A proc file system mounted somewhere else than /proc. */
function onProcFileSystem(path: string): boolean {
  try {
    return statfsSync(path).type === PROC_SUPER_MAGIC;
  } catch {
    return false;
  }
}
