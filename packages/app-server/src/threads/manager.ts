import { rmSync } from "node:fs";
import { SessionFile } from "@knightcode/store/session/session-file";
import { forkSession } from "@knightcode/store/session/fork";
import { probeThreadCommands } from "@knightcode/agent/thread/load-runtime";
import { readSessionHeader } from "@knightcode/store/session/read";
import { sandboxSupport } from "@knightcode/system/process/sandbox/support";
import type { CommandInfo } from "@knightcode/agent/resources/commands";
import type { ThreadEnvironment } from "@knightcode/agent/thread/runtime-options";
import type { WorkspaceState } from "@knightcode/store/session/format";
import { workspaceEntry } from "@knightcode/repo/worktrees/workspace";
import type { ThreadStatus } from "@knightcode/app-server-protocol";
import type { ServerContext } from "../host/context.js";
import { rpcError } from "../rpc/errors.js";
import { createModelRegistry } from "../models/registry.js";
import { createTrustStore } from "../trust/store.js";
import { ServerWorktrees } from "./worktrees.js";
import { PendingRequests } from "../asking/pending-requests.js";
import { ThreadCatalog } from "./catalog.js";
import { ThreadFences } from "./fences.js";
import { ThreadFailures } from "./failures.js";
import { Housekeeping } from "./housekeeping.js";
import type { Broadcaster, LoadedThread } from "./loaded-thread.js";
import { creationError, sessionError } from "../rpc/session-error.js";
import { threadEnvironment } from "./environment.js";
import { derivedName } from "./thread-object.js";
import { relocateThread, replaceThread } from "./replace.js";
import type { ThreadSequences } from "./sequences.js";
import { threadOf } from "../rpc/outbox.js";
import { Warming } from "./warming.js";
import type { CreateOptions } from "./create-options.js";
import { SubAgents } from "./subagents.js";
import { subAgentHost } from "./subagent-host.js";

let threadParts: Promise<typeof import("./open-thread.js")> | undefined;

/** What a loaded thread runs on (turns, approvals, its UI bridge) loads with the first thread: listing never waits for it. */
function loadThreadParts(): Promise<typeof import("./open-thread.js")> {
  threadParts ??= import("./open-thread.js");
  return threadParts;
}

/**
 * Every thread this process has loaded, and the shared pieces they run on:
 * one model registry, one trust store, one extension code cache. Loads,
 * creates and forks threads; closes them on unload or shutdown, releasing
 * their session locks.
 */
export class ThreadManager {
  private readonly loaded = new Map<string, LoadedThread>();
  private readonly loading = new Map<string, Promise<LoadedThread>>();
  private readonly failures: ThreadFailures;
  private readonly fences = new ThreadFences();
  /** Threads a session-replacing command began on. */
  readonly replacing = new WeakSet<LoadedThread>();
  private readonly housekeeping: Housekeeping;
  private readonly warming: Warming;
  /** The sub-agents the threads' models start: threads of this manager with a parent. */
  readonly subagents: SubAgents;
  private environmentValue: ThreadEnvironment | undefined;
  private broadcaster: Broadcaster = { broadcast: () => undefined };
  /** Shutdown began: no thread is created, loaded or forked any more. */
  private closing = false;
  /** The managed worktrees the threads run in. */
  readonly worktrees: ServerWorktrees = new ServerWorktrees(this);
  /** What the threads wait on a person for, across every connection: `serverRequest/list`. */
  readonly requests = new PendingRequests();
  /** The seq of every thread this process numbered: kept across unloads, so it never goes back; the catalog's. */
  private get sequences(): ThreadSequences {
    return this.catalog.sequences;
  }

  constructor(
    readonly context: ServerContext,
    /** Where the threads are on disk; shared with the listing, which the manager tells what its threads are doing. */
    readonly catalog: ThreadCatalog = new ThreadCatalog(context),
    environment?: ThreadEnvironment,
  ) {
    this.environmentValue = environment;
    this.failures = new ThreadFailures(context.log);
    catalog.attachStatus((threadId) => this.liveStatus(threadId));
    catalog.attachBroadcast(this.broadcast);
    this.subagents = new SubAgents(subAgentHost(this));
    this.warming = new Warming({ agentDir: context.agentDir, registry: () => this.registry, log: context.log, sandbox: () => sandboxSupport(context.env) });
    this.housekeeping = new Housekeeping({
      idleUnloadMs: context.idleUnloadMs,
      loaded: () => this.loaded.values(),
      unload: (thread) => this.close(thread, "unload"),
      log: context.log,
    });
  }

  /** Transcripts tell the listing when they are written, so the index a restarted server reads already knows them. */
  private readonly fileOptions = { onWritten: (path: string) => this.catalog.listing.noteWritten(path) };

  /** Loads what the first thread needs whenever `idle` says the server is free (see Warming); one bwrap run alongside, for the first start's warning. */
  warm(idle: () => Promise<void>): Promise<void> {
    return this.warming.threadLayer(idle, loadThreadParts);
  }

  /** The server that owns this manager sends sidebar notifications through it. */
  attach(broadcaster: Broadcaster): void {
    this.broadcaster = broadcaster;
  }

  /** The shared pieces every thread runs on; the services give them, an embedding host's manager makes its own. */
  get environment(): ThreadEnvironment {
    this.environmentValue ??= threadEnvironment(this.context, { registry: createModelRegistry(this.context), trust: createTrustStore(this.context) });
    return this.environmentValue;
  }

  private get locator() {
    return this.catalog.locator;
  }

  get registry(): ThreadEnvironment["registry"] {
    return this.environment.registry;
  }

  counts(): { loaded: number; loading: number } {
    return { loaded: this.loaded.size, loading: this.loading.size };
  }

  /** Every thread loaded now. */
  loadedThreads(): IterableIterator<LoadedThread> {
    return this.loaded.values();
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

  /**
   * Creates a thread of the project `cwd`: its session file exists from
   * this moment on, and runs in `workspace` when one is given (a worktree).
   * Should loading or `setup` fail, the thread is closed and its file
   * removed: a failed start leaves no thread behind. A sub-agent names
   * its `parent` thread (and the call that started it) in its header.
   */
  async create(cwd: string, setup: (thread: LoadedThread) => Promise<void> | void, options: CreateOptions = {}): Promise<LoadedThread> {
    if (this.closing) throw rpcError("shuttingDown", "the server is shutting down");
    this.warming.threadOpening(options.sandboxed === true);
    const parent = options.parent ? { parentThreadId: options.parent.threadId, parentCallId: options.parent.callId } : {};
    const file = await SessionFile.create({ dir: this.locator.sessionDirFor(cwd), cwd, ...parent, ...this.fileOptions }).catch((error: unknown) => {
      throw creationError("the thread", error);
    });
    this.locator.moved(file.header.id, file.path);
    let thread: LoadedThread | undefined;
    try {
      if (options.workspace) file.append(workspaceEntry(options.workspace), { durable: true });
      thread = await this.open(file, "startup", options.onlyTools);
      const release = thread.hold();
      try {
        await setup(thread);
        // Once the start chose the approval mode: a fullAccess thread runs unsandboxed and needs no warning.
        await thread.noteSandbox();
      } finally {
        release();
      }
    } catch (error) {
      await this.discardCreated(file, thread);
      throw error;
    }
    thread.core.broadcaster.broadcast("thread/started", { thread: thread.thread() });
    return thread;
  }

  /** A thread whose creation failed goes: closed, its transcript removed and forgotten. */
  private async discardCreated(file: SessionFile, opened: LoadedThread | undefined): Promise<void> {
    // A start that failed after the thread was registered left it loaded.
    const thread = opened ?? this.loaded.get(file.header.id);
    if (thread) await this.close(thread, "unload").catch((error: unknown) => thread.log.error("closing a thread whose start failed", error));
    file.close();
    rmSync(file.path, { force: true });
    this.locator.moved(file.header.id, undefined);
  }

  /** Runs `use` on a loaded thread (loading it when needed), holding it loaded until `use` is done. */
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
    if (this.closing) throw rpcError("shuttingDown", "the server is shutting down");
    let pending = this.loading.get(threadId);
    if (!pending) {
      pending = (async () => {
        await this.fences.beforeLoad(threadId);
        const path = this.locator.locate(threadId);
        if (!path) throw rpcError("threadNotFound", `no saved thread ${threadId}`);
        this.warming.threadOpening();
        let file: SessionFile;
        try {
          file = await SessionFile.open(path, { lazy: true, ...this.fileOptions });
        } catch (error) {
          throw sessionError(error, threadId);
        }
        this.failures.writeUnsaved(threadId, file);
        return this.open(file, "resume");
      })().finally(() => this.loading.delete(threadId));
      this.loading.set(threadId, pending);
    }
    return pending;
  }

  /** `/new` and an extension's ctx.newSession(): a fresh thread takes the old one's place (see replaceThread). */
  replace(old: LoadedThread): Promise<LoadedThread> {
    return replaceThread(this, old);
  }

  /** A thread moves to where it now runs, a handoff (see relocateThread). */
  async relocate<T>(thread: LoadedThread, work: () => Promise<T>): Promise<{ thread: LoadedThread; result: T }> {
    if (this.closing) throw rpcError("shuttingDown", "the server is shutting down");
    return relocateThread(this, thread, work);
  }

  /**
   * The commands a thread in `cwd` would offer, from a session built in
   * memory that never binds: no extension starts and nothing is written.
   */
  async commandsFor(cwd: string): Promise<CommandInfo[]> {
    if (this.closing) throw rpcError("shuttingDown", "the server is shutting down");
    return probeThreadCommands(this.environment, cwd);
  }

  /** Copies a thread's history (up to an entry, when `at` names one) into a new thread named "<name> (fork)", where `at` says it runs. */
  async fork(threadId: string, at: { upToEntryId?: string | null; workspace?: WorkspaceState } = {}): Promise<LoadedThread> {
    if (this.closing) throw rpcError("shuttingDown", "the server is shutting down");
    const source = this.loaded.get(threadId);
    const path = source?.file.path ?? this.locator.find(threadId)?.path;
    if (!path) throw rpcError("threadNotFound", `no saved thread ${threadId}`);
    let sourceName = source?.name;
    const cwd = source?.file.header.cwd ?? (await readSessionHeader(path)).cwd;
    const upTo = at.upToEntryId === undefined ? {} : { upToEntryId: at.upToEntryId };
    const forked = await forkSession({ source: path, dir: this.locator.sessionDirFor(cwd), cwd, ...upTo }).catch((error: unknown) => {
      throw creationError("the fork", error);
    });
    const file = await SessionFile.open(forked.path, this.fileOptions);
    if (sourceName === undefined) {
      const state = file.summary();
      sourceName = state.name ?? derivedName(state.firstUserText);
    }
    if (at.workspace) file.append(workspaceEntry(at.workspace), { durable: true });
    file.append({ type: "thread_name", name: `${sourceName} (fork)` });
    this.locator.moved(file.header.id, file.path);
    const thread = await this.open(file, "fork");
    thread.core.broadcaster.broadcast("thread/started", { thread: thread.thread() });
    return thread;
  }

  private async open(file: SessionFile, reason: "startup" | "resume" | "fork", onlyTools?: readonly string[]): Promise<LoadedThread> {
    const { openThread } = await loadThreadParts();
    const id = file.header.id;
    const log = this.context.log.child(`thread ${id.slice(0, 8)}`);
    const thread = await openThread(
      {
        environment: this.environment,
        log,
        broadcaster: this.broadcaster,
        sequences: this.sequences,
        replayEvents: this.context.replayEvents,
        terminal: this.context.terminal,
        payloads: () => this.context.payloads,
        env: this.context.env,
        replace: async (threadId) => {
          const loaded = this.loaded.get(threadId);
          if (!loaded) throw new Error("the thread is still loading");
          return (await this.replace(loaded)).id;
        },
        onFatal: (failed) => void this.close(failed, "unload").catch((e: unknown) => log.error("closing a failed thread", e)),
        onTurnStarted: (started) => this.worktrees.used(started, "turn"),
        requests: this.requests,
        ...this.subagents.openingDeps(file.header),
        ...(onlyTools ? { onlyTools } : {}),
      },
      file,
    );
    this.loaded.set(id, thread);
    this.worktrees.used(thread, "load");
    this.failures.loaded(id);
    this.housekeeping.watch();
    const release = thread.hold();
    try {
      await thread.runtime.session.resolveModel().catch((error: unknown) => log.warn(`no model: ${(error as Error).message}`));
      await thread.runtime.start(reason);
      // A new thread's start chooses its approval mode first, and notes it then.
      if (reason !== "startup") await thread.noteSandbox();
    } finally {
      thread.opened();
      release();
    }
    return thread;
  }

  /** Finds a thread's transcript, active or archived. */
  find(threadId: string): { path: string; archived: boolean } | undefined {
    return this.locator.find(threadId);
  }

  /** A transcript moved (archive, unarchive) or went (delete). */
  moved(threadId: string, path: string | undefined): void {
    this.locator.moved(threadId, path);
  }

  /** Tells every connection (thread/archived, thread/deleted, ...), numbered as the thread's other notifications are. */
  broadcast: Broadcaster["broadcast"] = (method, params) => {
    const threadId = threadOf(params as Record<string, unknown>);
    const loaded = threadId === undefined ? undefined : this.loaded.get(threadId);
    if (loaded) return loaded.core.broadcaster.broadcast(method, params);
    this.broadcaster.broadcast(method, params, threadId === undefined ? undefined : this.sequences.next(threadId));
  };

  /** What a thread this process holds or lost is doing: a lost thread's systemError outlives its unload. */
  private liveStatus(threadId: string): ThreadStatus | undefined {
    const loaded = this.loaded.get(threadId);
    if (loaded) return loaded.status;
    return this.failures.status(threadId);
  }

  /**
   * Runs `work` for a thread alone: after the load or unload under way when
   * it was asked for, and before any load asked for later, one fenced
   * operation of a thread at a time.
   */
  fenced<T>(threadId: string, work: () => Promise<T>): Promise<T> {
    return this.fences.fenced(threadId, this.loading.get(threadId), work);
  }

  /** Waits until a thread being unloaded has released its transcript. */
  unloaded(threadId: string): Promise<void> {
    return this.fences.unloaded(threadId);
  }

  /**
   * Unloads a thread: its running turn is interrupted and, until `deadline`,
   * allowed to write its entries; then its extensions shut down, its
   * processes die and its session lock is released.
   */
  async close(thread: LoadedThread, reason: "unload" | "shutdown", deadline?: Promise<void>, options: { quiet?: boolean } = {}): Promise<void> {
    if (thread.isClosed) return thread.close(reason, deadline);
    const failure = thread.failureMessage;
    if (failure !== undefined) this.failures.stopped(thread.id, failure);
    if (this.loaded.get(thread.id) === thread) this.loaded.delete(thread.id);
    const released = thread.close(reason, deadline);
    this.fences.unloadStarted(thread.id, released);
    // Its sub-agents go with it, alongside: nothing of its own closing waits for theirs.
    await Promise.all([released, this.subagents.closing(thread)]);
    // Only once the turn settled is everything it could not write known.
    if (failure !== undefined) this.failures.stopped(thread.id, failure, thread.runtime.session.unsavedTail());
    // A failed thread keeps showing its systemError until it loads again.
    if (reason === "unload" && failure === undefined && !options.quiet)
      this.broadcast("thread/status/changed", { threadId: thread.id, status: { type: "notLoaded" } });
  }

  /**
   * Shutdown's first step: no thread takes new work, every question open to
   * a client is withdrawn, and every running turn is interrupted as
   * turn/interrupt does. Resolves once each has written its
   * entries and settled.
   */
  async stopTurns(): Promise<void> {
    await this.stopTaking();
    // Whatever a thread still asks is withdrawn now: an answer could only come too late, and a command waiting on one would hold its request to the deadline.
    for (const thread of this.loaded.values()) thread.asker.close();
    await Promise.all([...this.loaded.values()].map((thread) => thread.turns.close()));
  }

  /** No thread is created, loaded or forked any more, nor unloaded for idling; loads under way finish first. */
  private async stopTaking(): Promise<void> {
    this.closing = true;
    this.housekeeping.stop();
    await Promise.allSettled([...this.loading.values()]);
  }

  /** Closes every thread, giving running turns until `deadline` to settle; safe to call twice. */
  async closeAll(deadline?: Promise<void>): Promise<void> {
    await this.stopTaking();
    await Promise.all([...this.loaded.values()].map((thread) => this.close(thread, "shutdown", deadline).catch(() => undefined)));
    await this.worktrees.dispose();
    await this.catalog.close();
  }
}
