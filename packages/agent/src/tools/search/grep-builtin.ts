import type { SandboxLaunch } from "@knightcode/system/process/sandbox/command";
import type { Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { join, sep } from "node:path";
import { NotRegularFileError, openRegularFile } from "@knightcode/system/fs/regular-file";
import { throwIfAborted, ToolError } from "../errors.js";
import type { SearchTarget } from "../search-target.js";
import { grepGlob, slashPath } from "./globs.js";
import { Problems } from "./problems.js";
import { compilePattern } from "./regex.js";
import { CHUNK_BYTES, scanFile, type LineHit, type ScanOptions } from "./scan-file.js";
import type { IgnoreRules } from "./ignore-rules.js";
import { walk, type Entry } from "./walk.js";

export interface GrepSearch {
  target: SearchTarget;
  params: { pattern: string; glob?: string; ignoreCase?: boolean; literal?: boolean; context?: number };
  /** Matches wanted; the search may stop after one more. */
  limit: number;
  env: NodeJS.ProcessEnv;
  /** The sandbox rg or fd runs in; the in-process search needs none. */
  sandbox?: SandboxLaunch;
  signal?: AbortSignal;
  /** Receives each line to show, file by file in order; false ends the search. */
  onLine: (path: string, hit: LineHit) => boolean;
}

/**
 * Files read at once. Reading one file takes several trips to libuv's
 * thread pool; overlapping them matters most on a busy machine.
 */
const CONCURRENT_FILES = 8;
/** Text a file read ahead may hold; one with more is read again when its turn comes. */
const MAX_HELD_CHARS = 1024 * 1024;

/** Searches the target in this process; returns a note about paths that could not be read, if any. */
export async function grepInProcess(search: GrepSearch): Promise<string> {
  const { target, params } = search;
  const stop = new AbortController();
  const signal = search.signal ? AbortSignal.any([search.signal, stop.signal]) : stop.signal;
  const files = new FileSearch(
    { pattern: compilePattern(params.pattern, params), context: params.context ?? 0, binaryQuits: true, signal },
    target,
    search.limit,
  );
  if (target.file !== undefined) {
    const path = join(target.dir, target.file);
    // rg searches a file named outright whatever it holds.
    await files.stream(path, (hit) => search.onLine(path, hit), false);
    return files.problems.note();
  }
  const ahead: { path: string; result: Promise<Held> }[] = [];
  const next = async (): Promise<boolean> => {
    const { path, result } = ahead.shift()!;
    const held = await result;
    const emit = (hit: LineHit) => search.onLine(path, hit);
    if (held.overflowed) return files.stream(path, emit);
    return held.hits.every(emit);
  };
  try {
    let going = true;
    for await (const entry of walk(target.dir, { signal, keep: keeper(search), onError: (error) => files.problems.add(error) })) {
      if (!entry.dirent.isFile()) continue;
      const result = files.hold(entry.path);
      // Handled now, awaited in turn: a read ahead that fails while an earlier one is awaited is no unhandled rejection.
      result.catch(() => {});
      ahead.push({ path: entry.path, result });
      if (ahead.length >= CONCURRENT_FILES && !(going = await next())) break;
    }
    while (going && ahead.length > 0) going = await next();
  } catch (error) {
    throwIfAborted(search.signal);
    throw error;
  } finally {
    // Reads still ahead are no longer wanted.
    stop.abort();
  }
  return files.problems.note();
}

/** What the walk enters and yields: grep's glob first, as rg's --glob overrides ignore files, then the ignore files. */
function keeper({ target, params }: GrepSearch) {
  const glob = params.glob === undefined ? undefined : grepGlob(params.glob);
  const prefix = target.dir.length + (target.dir.endsWith(sep) ? 0 : 1);
  return (entry: Entry, rules: IgnoreRules) => {
    const isDirectory = entry.dirent.isDirectory();
    const verdict = glob?.(slashPath(entry.path.slice(prefix)), isDirectory);
    return verdict === undefined ? !rules.isIgnored(entry.path, isDirectory) : verdict === "include";
  };
}

/** The lines of one file read ahead of its turn. */
interface Held {
  hits: LineHit[];
  /** Too much to hold: read the file again, streaming, when its turn comes. */
  overflowed: boolean;
}

/** Reads files for one search, with a few read buffers shared among them. */
class FileSearch {
  readonly problems = new Problems();
  private readonly buffers: Buffer[] = [];

  constructor(
    private readonly scan: Omit<ScanOptions, "size">,
    private readonly target: SearchTarget,
    private readonly limit: number,
  ) {}

  /** Reads a file's lines to show, up to one match past the limit, which is all the printer can use. */
  async hold(path: string): Promise<Held> {
    const held: Held = { hits: [], overflowed: false };
    let matches = 0;
    let chars = 0;
    await this.stream(path, (hit) => {
      held.hits.push(hit);
      chars += hit.text.length;
      held.overflowed = chars > MAX_HELD_CHARS;
      if (hit.kind === "match") matches++;
      return matches <= this.limit && !held.overflowed;
    });
    return held;
  }

  /** Feeds a file's lines to `emit`; false when `emit` asked to stop. Unreadable files count as problems. */
  async stream(path: string, emit: (hit: LineHit) => boolean, binaryQuits = true): Promise<boolean> {
    let opened: { handle: FileHandle; stats: Stats };
    try {
      // A FIFO swapped in for a walked file is skipped, never opened to wait for a writer.
      opened = await openRegularFile(path);
    } catch (error) {
      if (!(error instanceof NotRegularFileError)) this.problems.add(error);
      return true;
    }
    const { handle, stats } = opened;
    const buffer = this.buffers.pop() ?? Buffer.allocUnsafe(CHUNK_BYTES);
    try {
      if (this.target.credentials.skipsWalked(path, stats)) return true;
      return await scanFile(handle, buffer, { ...this.scan, binaryQuits, size: stats.size }, emit);
    } catch (error) {
      if (error instanceof ToolError) throw error;
      this.problems.add(error);
      return true;
    } finally {
      this.buffers.push(buffer);
      await handle.close();
    }
  }
}
