import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  ARCHIVED_FOLDER,
  ExtensionFactoryCache,
  ArchiveConflictError,
  isArchivedPath,
  ModelRegistry,
  SessionFile,
  SessionFileError,
  ThreadRuntime,
  ThreadListing,
  TrustStore,
  forkSession,
  readSessionHeader,
  readSettings,
  resolveSessionDir,
  warmEngine,
  warmUp,
  type ThreadEnvironment,
  type Warning,
} from "@knightcode/agent";
import type { ServerContext } from "../context.js";
import { rpcError } from "../rpc/errors.js";
import type { Broadcaster, LoadedThread } from "./loaded-thread.js";
import { derivedName, validApprovalMode, type ApprovalMode } from "./thread-object.js";
import { modelError } from "./model-error.js";

type ThreadParts = [typeof import("./loaded-thread.js"), typeof import("../ui/bridge.js")];
let threadParts: Promise<ThreadParts> | undefined;

/** What a loaded thread runs on (turns, approvals, its UI bridge) loads with the first thread: listing never waits for it. */
function loadThreadParts(): Promise<ThreadParts> {
  threadParts ??= Promise.all([import("./loaded-thread.js"), import("../ui/bridge.js")]);
  return threadParts;
}

/**
 * Every thread this process has loaded, and the shared pieces they run on:
 * one model registry, one trust store. Loads, creates and forks threads;
 * closes them on unload or shutdown, releasing their session locks.
 */
export class ThreadManager {
  private readonly loaded = new Map<string, LoadedThread>();
  private readonly loading = new Map<string, Promise<LoadedThread>>();
  /** Threads between unload and their released lock: a load waits for it. */
  private readonly unloading = new Map<string, Promise<void>>();
  private readonly knownPaths = new Map<string, string>();
  private environmentValue: ThreadEnvironment | undefined;
  private listingValue: ThreadListing | undefined;
  private broadcaster: Broadcaster = { broadcast: () => undefined };
  private closing: Promise<void> | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  /** Archive, unarchive and delete of one thread, one at a time; loads wait for them. */
  private readonly fences = new Map<string, Promise<unknown>>();
  /** Threads that lost their transcript: their systemError shows until a load succeeds. */
  private readonly failures = new Map<string, string>();

  constructor(readonly context: ServerContext) {}

  /** Transcripts tell the listing when they are written, so the index a restarted server reads already knows them. */
  private readonly fileOptions = { onWritten: (path: string) => this.listing.noteWritten(path) };

  /** Now and then: unloads threads nobody has watched or used for the idle time, and notices lost ownership. */
  private watchIdle(): void {
    if (this.idleTimer || this.closing) return;
    const every = Math.max(10, Math.min(5_000, Math.floor(this.context.idleUnloadMs / 4)));
    this.idleTimer = setInterval(() => this.housekeeping(), every);
    this.idleTimer.unref();
  }

  private housekeeping(): void {
    const now = Date.now();
    for (const thread of this.loaded.values()) {
      if (thread.lostOwnership()) continue;
      const since = thread.idleSince();
      if (since === undefined || now - since < this.context.idleUnloadMs) continue;
      this.context.log.info(`thread ${thread.id} unloads after ${now - since} ms without subscribers or work`);
      void this.close(thread, "unload").catch((error: unknown) => this.context.log.error(`unloading thread ${thread.id}`, error));
    }
    if (this.loaded.size === 0 && this.idleTimer) {
      clearInterval(this.idleTimer);
      this.idleTimer = undefined;
    }
  }

  /** Loads what the first thread and its first turn need, a step at a time whenever `idle` says the server is free. */
  async warm(idle: () => Promise<void>): Promise<void> {
    await loadThreadParts();
    await warmUp({ agentDir: this.context.agentDir, registry: this.registry, idle });
  }

  /** The server that owns this manager sends sidebar notifications through it. */
  attach(broadcaster: Broadcaster): void {
    this.broadcaster = broadcaster;
  }

  get environment(): ThreadEnvironment {
    this.environmentValue ??= {
      agentDir: this.context.agentDir,
      registry: new ModelRegistry(this.context.agentDir, this.context.env),
      trust: new TrustStore(this.context.agentDir),
      // One code cache per process: threads lease what they load; at most 256 unleased entries stay.
      extensionFactories: new ExtensionFactoryCache({ onChange: (counts) => (this.context.counters.inactiveFactories = counts.inactive) }),
      extensionPaths: this.context.extensionPaths,
      env: this.context.env,
      log: (line) => this.context.log.info(line),
    };
    return this.environmentValue;
  }

  /** The engine behind thread/list and thread/read's summaries; its counters are the server's. */
  get listing(): ThreadListing {
    this.listingValue ??= new ThreadListing({ counters: this.context.counters });
    return this.listingValue;
  }

  /** Every folder that holds this server's active transcripts (their `archived` folders beside them). */
  sessionFolders(): string[] {
    return this.sessionRoots();
  }

  get registry(): ModelRegistry {
    return this.environment.registry;
  }

  counts(): { loaded: number; loading: number } {
    return { loaded: this.loaded.size, loading: this.loading.size };
  }

  get(threadId: string): LoadedThread | undefined {
    return this.loaded.get(threadId);
  }

  /** A loaded thread or threadNotFound. */
  require(threadId: string): LoadedThread {
    const thread = this.loaded.get(threadId);
    if (!thread) throw rpcError("threadNotFound", `thread ${threadId} is not loaded`);
    return thread;
  }

  /** Where new sessions of a project go: --session-dir, the environment, the sessionDir setting, or one folder per project. */
  sessionDirFor(cwd: string): string {
    const global = readSettings({ agentDir: this.context.agentDir }).scopes.global.settings;
    const configured = typeof global.sessionDir === "string" ? global.sessionDir : undefined;
    return resolveSessionDir({ override: this.context.sessionDir, env: this.context.env, settingsSessionDir: configured, agentDir: this.context.agentDir, cwd }).dir;
  }

  /** The model a new thread in `cwd` would start with, if any is usable. */
  async defaultModel(cwd: string) {
    const effective = readSettings({ agentDir: this.context.agentDir, cwd, trust: this.environment.trust.decisionFor(cwd) }).effective;
    try {
      return await this.registry.resolve(undefined, { provider: effective.defaultProvider ?? undefined, id: effective.defaultModel ?? undefined });
    } catch {
      return undefined;
    }
  }

  /** A terminal host's threads run everything; a desktop thread takes the settings it loaded (trusted project settings included). */
  private defaultApprovalMode(runtime: ThreadRuntime): ApprovalMode {
    if (this.context.terminal) return "fullAccess";
    return validApprovalMode(runtime.settings.effective.defaultApprovalMode);
  }

  /** Creates a thread: its session file exists from this moment on. */
  async create(cwd: string, setup: (thread: LoadedThread) => Promise<void> | void): Promise<LoadedThread> {
    warmEngine();
    const file = await SessionFile.create({ dir: this.sessionDirFor(cwd), cwd, ...this.fileOptions });
    this.knownPaths.set(file.header.id, file.path);
    const thread = await this.open(file, "startup");
    const release = thread.hold();
    try {
      await setup(thread);
    } finally {
      release();
    }
    this.broadcaster.broadcast("thread/started", { thread: thread.thread() });
    return thread;
  }

  /**
   * Runs `use` on a loaded thread (loading it when needed), holding it
   * loaded until `use` is done.
   */
  async using<T>(threadId: string, use: (thread: LoadedThread) => Promise<T> | T): Promise<T> {
    const thread = await this.load(threadId);
    const release = thread.hold();
    try {
      return await use(thread);
    } finally {
      release();
    }
  }

  /** Loads a thread from its session file (once, however many ask at the same time). */
  async load(threadId: string): Promise<LoadedThread> {
    const existing = this.loaded.get(threadId);
    if (existing) return existing;
    let pending = this.loading.get(threadId);
    if (!pending) {
      pending = (async () => {
        await this.fences.get(threadId);
        await this.unloading.get(threadId);
        const path = this.locate(threadId);
        if (!path) throw rpcError("threadNotFound", `no saved thread ${threadId}`);
        warmEngine();
        let file: SessionFile;
        try {
          file = await SessionFile.open(path, { lazy: true, ...this.fileOptions });
        } catch (error) {
          throw sessionError(error, threadId);
        }
        return this.open(file, "resume");
      })().finally(() => this.loading.delete(threadId));
      this.loading.set(threadId, pending);
    }
    return pending;
  }

  /** Copies a thread's history into a new thread named "<name> (fork)". */
  async fork(threadId: string): Promise<LoadedThread> {
    const source = this.loaded.get(threadId);
    const path = source?.file.path ?? this.find(threadId)?.path;
    if (!path) throw rpcError("threadNotFound", `no saved thread ${threadId}`);
    let sourceName = source?.name;
    const cwd = source?.file.header.cwd ?? (await readSessionHeader(path)).cwd;
    const forked = await forkSession({ source: path, dir: this.sessionDirFor(cwd), cwd });
    const file = await SessionFile.open(forked.path, this.fileOptions);
    if (sourceName === undefined) {
      const state = file.summary();
      sourceName = state.name ?? derivedName(state.firstUserText);
    }
    file.append({ type: "thread_name", name: `${sourceName} (fork)` });
    this.knownPaths.set(file.header.id, file.path);
    const thread = await this.open(file, "fork");
    this.broadcaster.broadcast("thread/started", { thread: thread.thread() });
    return thread;
  }

  private async open(file: SessionFile, reason: "startup" | "resume" | "fork"): Promise<LoadedThread> {
    const [{ LoadedThread }, { UiBridge }] = await loadThreadParts();
    const id = file.header.id;
    const log = this.context.log.child(`thread ${id.slice(0, 8)}`);
    let thread: LoadedThread | undefined;
    const ui = new UiBridge({
      threadId: id,
      send: (method, params) => thread?.send(method, params as never),
      warn: (warning) => thread?.warn(warning),
      log: (line) => log.info(line),
    });
    let runtime: ThreadRuntime;
    let warnings: Warning[];
    try {
      ({ runtime, warnings } = await ThreadRuntime.create({
        environment: this.environment,
        threadId: id,
        cwd: file.header.cwd,
        transcript: file,
        mode: "desktop",
        hasUI: true,
        ui,
        onWarning: (warning) => thread?.warn(warning),
        approvalGate: (call, signal) => (thread ? thread.gate.check(call, signal) : Promise.resolve(undefined)),
      }));
    } catch (error) {
      file.close();
      throw error;
    }
    thread = new LoadedThread({
      file,
      runtime,
      ui,
      warnings,
      broadcaster: this.broadcaster,
      log,
      defaultApprovalMode: this.defaultApprovalMode(runtime),
      onFatal: (failed) => void this.close(failed, "unload").catch((e: unknown) => log.error("closing a failed thread", e)),
      modelError,
      payloads: () => this.context.payloads,
    });
    this.loaded.set(id, thread);
    this.failures.delete(id);
    this.watchIdle();
    const release = thread.hold();
    try {
      await runtime.session.resolveModel().catch((error: unknown) => log.warn(`no model: ${(error as Error).message}`));
      await runtime.start(reason);
    } finally {
      release();
    }
    return thread;
  }

  /** Finds a thread's active session file; an archived thread cannot be loaded until it is unarchived. */
  locate(threadId: string): string | undefined {
    const found = this.find(threadId);
    if (found?.archived) throw rpcError("threadNotFound", `thread ${threadId} is archived; unarchive it first`, { reason: "archived" });
    return found?.path;
  }

  /** Finds a thread's transcript, active or archived: known paths first, then the session folders by file name. */
  find(threadId: string): { path: string; archived: boolean } | undefined {
    if (!/^[0-9a-zA-Z-]{1,128}$/.test(threadId)) return undefined;
    const known = this.knownPaths.get(threadId);
    if (known && existsSync(known)) return { path: known, archived: isArchivedPath(known) };
    this.knownPaths.delete(threadId);
    const suffix = `_${threadId}.jsonl`;
    const roots = this.sessionRoots();
    for (const dir of [...roots, ...roots.map((root) => join(root, ARCHIVED_FOLDER))]) {
      let names: string[];
      try {
        names = readdirSync(dir);
      } catch {
        continue;
      }
      const match = names.find((name) => name.endsWith(suffix));
      if (match) {
        const path = join(dir, match);
        this.knownPaths.set(threadId, path);
        return { path, archived: isArchivedPath(path) };
      }
    }
    return undefined;
  }

  /** A transcript moved (archive, unarchive) or went (delete). */
  moved(threadId: string, path: string | undefined): void {
    if (path === undefined) this.knownPaths.delete(threadId);
    else this.knownPaths.set(threadId, path);
  }

  /** Every folder that may hold session files: the configured ones and each per-project folder. */
  private sessionRoots(): string[] {
    const roots = new Set<string>();
    const env = this.context.env.KNIGHTCODE_CODING_AGENT_SESSION_DIR;
    if (this.context.sessionDir) roots.add(this.context.sessionDir);
    if (env) roots.add(env);
    const global = readSettings({ agentDir: this.context.agentDir }).scopes.global.settings;
    if (typeof global.sessionDir === "string") roots.add(global.sessionDir);
    const perProject = join(this.context.agentDir, "sessions");
    try {
      for (const name of readdirSync(perProject)) {
        const dir = join(perProject, name);
        if (statSync(dir).isDirectory()) roots.add(dir);
      }
    } catch {
      // No sessions yet.
    }
    return [...roots];
  }

  /** Tells every connection (thread/archived, thread/deleted, ...). */
  broadcast: Broadcaster["broadcast"] = (method, params) => this.broadcaster.broadcast(method, params);

  /** What a thread's status is, loaded or not: a lost thread's systemError outlives its unload. */
  statusOf(threadId: string): LoadedThread["status"] {
    const loaded = this.loaded.get(threadId);
    if (loaded) return loaded.status;
    const failure = this.failures.get(threadId);
    return failure === undefined ? { type: "notLoaded" } : { type: "systemError", message: failure };
  }

  /**
   * Runs `work` for a thread alone: after the load or unload under way when
   * it was asked for, and before any load asked for later (loads wait for
   * the fence), one fenced operation of a thread at a time.
   */
  fenced<T>(threadId: string, work: () => Promise<T>): Promise<T> {
    const loadBefore = this.loading.get(threadId);
    const previous = this.fences.get(threadId) ?? Promise.resolve();
    const run = async () => {
      await loadBefore?.catch(() => undefined);
      await this.unloading.get(threadId);
      return work();
    };
    const next = previous.then(run, run);
    trackUntilSettled(this.fences, threadId, next);
    return next;
  }

  /** Waits until a thread being unloaded has released its transcript. */
  async unloaded(threadId: string): Promise<void> {
    await this.unloading.get(threadId);
  }

  /** Unloads a thread: extensions shut down, the session lock released. */
  async close(thread: LoadedThread, reason: "unload" | "shutdown"): Promise<void> {
    if (thread.isClosed) return;
    const failed = thread.status.type === "systemError";
    if (thread.status.type === "systemError") this.failures.set(thread.id, thread.status.message);
    thread.markClosed();
    if (this.loaded.get(thread.id) === thread) this.loaded.delete(thread.id);
    const released = (async () => {
      try {
        await thread.runtime.dispose(reason);
      } finally {
        thread.file.close();
      }
    })();
    trackUntilSettled(this.unloading, thread.id, released);
    await released;
    // A failed thread keeps showing its systemError until it loads again.
    if (reason === "unload" && !failed) this.broadcaster.broadcast("thread/status/changed", { threadId: thread.id, status: { type: "notLoaded" } });
  }

  /** Closes every thread; safe to call twice. */
  closeAll(): Promise<void> {
    if (this.idleTimer) clearInterval(this.idleTimer);
    this.idleTimer = undefined;
    this.closing ??= (async () => {
      await Promise.allSettled([...this.loading.values()]);
      await Promise.all([...this.loaded.values()].map((thread) => this.close(thread, "shutdown").catch(() => undefined)));
      await this.listingValue?.close().catch(() => undefined);
    })();
    return this.closing;
  }
}

/** Keeps `work`'s settling (never its failure) under `key` until it settles, unless newer work took the key. */
function trackUntilSettled(map: Map<string, Promise<unknown>>, key: string, work: Promise<unknown>): void {
  const settled = work.then(
    () => undefined,
    () => undefined,
  );
  map.set(key, settled);
  void settled.then(() => {
    if (map.get(key) === settled) map.delete(key);
  });
}

/** Maps a session file failure to the protocol's error. */
export function sessionError(error: unknown, threadId: string): Error {
  if (error instanceof ArchiveConflictError) return rpcError("archiveConflict", error.message, { ...error.recovery });
  if (!(error instanceof SessionFileError)) return error as Error;
  switch (error.code) {
    case "lockedElsewhere":
      return rpcError("threadLockedElsewhere", `thread ${threadId} is open in another process${error.holder ? ` (pid ${error.holder.pid})` : ""}`, {
        ...(error.holder ? { pid: error.holder.pid, host: error.holder.host } : {}),
      });
    case "hardLinked":
      return rpcError("archiveConflict", `the session file of thread ${threadId} has other hard links; refusing to own it`, { paths: [error.path] });
    case "notFound":
      return rpcError("threadNotFound", `no saved thread ${threadId}`);
    case "notASessionFile":
    case "writeFailed":
      return rpcError("internal", error.message);
    default:
      return error;
  }
}
