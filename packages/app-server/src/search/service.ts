import { findExecutable } from "@knightcode/system/util/executable";
import type { ClientRequestParams, ClientRequestResult } from "@knightcode/app-server-protocol";
import { rpcError } from "../rpc/errors.js";
import { requireDirectory } from "../threads/directory.js";
import { matchPaths } from "./fuzzy.js";
import type { ListerLimits } from "./lister.js";
import { ListingCache, realSearchClock, type SearchClock } from "./listing-cache.js";

type Params = ClientRequestParams<"file/search">;
type Result = ClientRequestResult<"file/search">;

export const DEFAULT_LIMIT = 50;

export interface FileSearchLimits extends ListerLimits {
  ttlMs: number;
  maxFolders: number;
  maxRunning: number;
  timeoutMs: number;
}

export const SPEC_LIMITS: FileSearchLimits = {
  maxPaths: 200_000,
  maxBytes: 32 * 1024 * 1024,
  ttlMs: 10_000,
  maxFolders: 8,
  maxRunning: 2,
  timeoutMs: 15_000,
};

/**
 * fd's own rules decide what is listed (.gitignore inside a repository,
 * .ignore and .fdignore files, no symbolic link followed); hidden files
 * are listed as a picker's user expects (`.github/`, `.env.example`), all
 * but `.git`. Symbolic links are listed as themselves.
 */
export const FD_ARGS = ["--type", "f", "--type", "l", "--hidden", "--exclude", ".git", "--color", "never", "--print0"] as const;

export interface FileSearchOptions {
  /** The environment fd runs with; asked at each listing. */
  env(): NodeJS.ProcessEnv;
  /** Where fd is looked for; the server's own PATH. */
  pathEnv(): NodeJS.ProcessEnv;
  limits?: Partial<FileSearchLimits>;
  clock?: SearchClock;
  log?: (message: string) => void;
}

/** The names fd goes by, looked up in this order: Debian and Ubuntu install it as fdfind. */
const FD_NAMES = ["fd", "fdfind"];
const SUPERSEDED = new Error("superseded by a newer search with the same searchId");
const superseded = (): Result => ({ files: [], truncated: false });

/**
 * file/search for one server: the listing cache, and the searches by
 * searchId, so that a newer search supersedes an older one whatever
 * connection either came from.
 */
export class FileSearch {
  readonly limits: FileSearchLimits;
  private readonly cache: ListingCache;
  private readonly byId = new Map<string, AbortController>();
  private closed = false;

  constructor(private readonly options: FileSearchOptions) {
    this.limits = { ...SPEC_LIMITS, ...options.limits };
    const { ttlMs, maxFolders, maxRunning, timeoutMs } = this.limits;
    this.cache = new ListingCache({
      clock: options.clock ?? realSearchClock,
      ttlMs,
      maxFolders,
      maxRunning,
      timeoutMs,
      list: (cwd, signal, deadline) => this.list(cwd, signal, deadline.promise),
      onPartial: (cwd, problem) => options.log?.(`fd listed ${cwd} only in part, not cached: ${problem}`),
    });
  }

  async search(params: Params, signal: AbortSignal): Promise<Result> {
    if (this.closed) throw shuttingDown();
    const cwd = requireDirectory(params.cwd);
    const controller = new AbortController();
    const onAbort = (): void => controller.abort(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    // Asked before the older search lets go, so that a listing both want keeps running.
    const listed = this.cache.get(cwd, controller.signal);
    const id = params.searchId;
    if (id !== undefined) {
      this.byId.get(id)?.abort(SUPERSEDED);
      this.byId.set(id, controller);
    }
    try {
      const listing = await listed;
      if (this.closed) throw shuttingDown();
      if (controller.signal.reason === SUPERSEDED) return superseded();
      return { files: matchPaths(listing.paths, params.query, params.limit ?? DEFAULT_LIMIT), truncated: listing.truncated };
    } catch (error) {
      // Shutdown wins over superseding: whichever came first, the answer is shuttingDown.
      if (this.closed) throw shuttingDown();
      if (controller.signal.reason === SUPERSEDED) return superseded();
      throw error;
    } finally {
      signal.removeEventListener("abort", onAbort);
      if (id !== undefined && this.byId.get(id) === controller) this.byId.delete(id);
    }
  }

  /** Every pending search answers shuttingDown, every listing is stopped; resolves once no fd runs. */
  close(): Promise<void> {
    this.closed = true;
    this.byId.clear();
    return this.cache.close(shuttingDown());
  }

  private async list(cwd: string, signal: AbortSignal, deadline: Promise<void>) {
    const program = await findExecutable(FD_NAMES, this.options.pathEnv());
    if (program === undefined) throw rpcError("toolMissing", "file search needs fd, and neither fd nor fdfind is on the server's PATH");
    if (signal.aborted) throw signal.reason;
    // The runner loads with the first search: a server that never searches starts without it.
    const { runLister } = await import("./lister.js");
    return runLister({
      program,
      args: FD_ARGS,
      cwd,
      env: this.options.env(),
      limits: this.limits,
      signal,
      deadline,
      deadlineText: `${this.limits.timeoutMs / 1000} s`,
    });
  }
}

function shuttingDown() {
  return rpcError("shuttingDown", "the server is shutting down");
}
