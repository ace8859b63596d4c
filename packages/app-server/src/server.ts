import { ProtocolSchema, type ClientRequestMethod, type ServerNotificationMethod, type ServerNotificationParams } from "@knightcode/app-server-protocol";
import type { ServerContext } from "./host/context.js";
import type { ServerHost } from "./host/server-host.js";
import { handlers as defaultHandlers, loadHandlers } from "./handlers.js";
import { Connection } from "./rpc/connection.js";
import { AppServerError, rpcError } from "./rpc/errors.js";
import type { HandlerTable, RequestContext } from "./rpc/handler.js";
import type { Incoming } from "./rpc/message.js";
import { shutdownConnections, type ShutdownOptions } from "./lifecycle/shutdown.js";
import type { ServerTransport } from "./transport/types.js";
import { Services } from "./services/services.js";
import type { ThreadCatalog } from "./threads/catalog.js";
import type { ThreadManager } from "./threads/manager.js";

export interface AppServerOptions {
  context: ServerContext;
  /** The threads: a host that embeds the server creates it (and awaits closeAll on shutdown). */
  threads?: ThreadManager;
  handlers?: HandlerTable;
  schema?: ProtocolSchema;
  /** Whether the thread layer loads in the background after the first handshake; true unless a test needs to see what a method alone loads. */
  warmUp?: boolean;
}

const MAX_ERROR_MESSAGE = 2000;
/** How long after the first handshake the warm-up begins. */
const WARM_UP_DELAY_MS = 30;
/** What a client asks first: their validators compile during the warm-up. */
const FIRST_REQUESTS: ClientRequestMethod[] = ["thread/start", "thread/resume", "thread/read", "thread/list", "turn/start"];

/**
 * Connections and dispatch over one shared context. Each request is checked
 * once here (handshake, method, params against the generated schema) and
 * handed to its handler with typed params; handlers own the domain work.
 */
export class AppServer implements ServerHost {
  readonly context: ServerContext;
  /** What handlers use, built on first use: the composition root. */
  readonly services: Services;
  private readonly handlers: HandlerTable;
  private readonly schema: ProtocolSchema;
  private readonly liveConnections = new Set<Connection>();
  private shutdownPromise: Promise<void> | undefined;
  private readonly inputStoppers: (() => void)[] = [];

  constructor(options: AppServerOptions) {
    this.context = options.context;
    this.services = new Services(this);
    if (options.threads) this.services.adopt(options.threads);
    this.warmUpScheduled = options.warmUp === false;
    this.handlers = options.handlers ?? defaultHandlers;
    this.schema = options.schema ?? ProtocolSchema.load();
  }

  get connections(): ReadonlySet<Connection> {
    return this.liveConnections;
  }

  get isShuttingDown(): boolean {
    return this.shutdownPromise !== undefined;
  }

  connect(transport: ServerTransport, kind: Connection["kind"]): Connection {
    const connection = new Connection(
      transport,
      kind,
      {
        onRequest: (conn, request) => this.dispatch(conn, request),
        onClosed: (conn) => this.liveConnections.delete(conn),
        onReady: () => this.scheduleWarmUp(),
      },
      this.context.log,
    );
    this.liveConnections.add(connection);
    if (this.shutdownPromise) transport.stopInput();
    return connection;
  }

  /** Something else that takes input (a listening socket) to stop when shutdown begins. */
  onStopInput(stop: () => void): void {
    this.inputStoppers.push(stop);
  }

  /** Sends a notification to every initialized connection; `seq` is the thread's number for it, when it is about a thread. */
  broadcast<M extends ServerNotificationMethod>(method: M, params: ServerNotificationParams<M>, seq?: number): void {
    for (const connection of this.liveConnections) connection.notify(method, params, seq);
  }

  /** The thread manager, loaded on first use (never before the handshake); a host that embeds the server may pass its own. */
  threads(): Promise<ThreadManager> {
    return this.services.threads();
  }

  /** The threads on disk, for listings and history: loads no more than the listing needs. */
  catalog(): Promise<ThreadCatalog> {
    return this.services.catalog();
  }

  /** The thread manager if it exists yet; nothing is loaded to answer. */
  get loadedThreads(): ThreadManager | undefined {
    return this.services.loadedThreads;
  }

  threadCounts(): { loaded: number; loading: number } {
    return this.services.loadedThreads?.counts() ?? { loaded: 0, loading: 0 };
  }

  private warmUpScheduled: boolean;
  /** Requests accepted and not answered yet, over every connection. */
  private answering = 0;
  private readonly idleWaiters: (() => void)[] = [];

  /**
   * Shortly after the first handshake, the thread layer loads in the
   * background: the handshake never waits for it, and a request the client
   * sends right after the handshake (a first listing) starts before it and
   * does not share the processor with it.
   */
  private scheduleWarmUp(): void {
    if (this.warmUpScheduled) return;
    this.warmUpScheduled = true;
    setTimeout(() => {
      if (!this.shutdownPromise) void this.warmUp();
    }, WARM_UP_DELAY_MS).unref();
  }

  /**
   * Loads the thread layer, then what the first thread and turn need, in
   * steps taken only while no request is being answered: a request never
   * waits for more than the step under way.
   */
  warmUp(): Promise<void> {
    return this.idle()
      .then(() => Promise.all([this.threads(), loadHandlers(FIRST_REQUESTS)]))
      .then(async ([manager]) => {
        await this.idle();
        this.schema.prepare("clientRequests", FIRST_REQUESTS);
        await manager.warm(() => this.idle());
      })
      .catch((error: unknown) => this.context.log.warn("warming the thread layer failed", error));
  }

  /** Resolves once no request is being answered. */
  private idle(): Promise<void> {
    if (this.answering === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private track(request: { settled: Promise<void> }): void {
    this.answering++;
    void request.settled.then(() => {
      if (--this.answering === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    });
  }

  /**
   * Stops input at once, interrupts running turns, lets accepted requests
   * finish, answers the rest with `shuttingDown` at the deadline, unloads
   * every thread and drains output. Safe to call again.
   */
  shutdown(reason: string, options?: ShutdownOptions): Promise<void> {
    this.shutdownPromise ??= (async () => {
      this.context.log.info(`shutting down: ${reason}`);
      for (const stop of this.inputStoppers.splice(0)) stop();
      for (const connection of this.liveConnections) connection.transport.stopInput();
      // A manager still loading is waited for: threads it is about to hold must unload too.
      const manager = () => this.services.pending().threads;
      const threads = {
        stopTurns: async () => (await manager())?.stopTurns(),
        closeAll: async (deadline: Promise<void>) => {
          const threads = await manager();
          // The manager closes the catalog it shares; a server that only listed has a catalog alone.
          if (threads) await threads.closeAll(deadline);
          else await (await this.services.pending().catalog)?.close();
        },
      };
      await shutdownConnections([...this.liveConnections], this.context, threads, options);
    })();
    return this.shutdownPromise;
  }

  private dispatch(connection: Connection, request: Extract<Incoming, { type: "request" }>): void {
    const { id, method, params } = request;
    if (this.shutdownPromise) return connection.refuse(id, rpcError("shuttingDown", "the server is shutting down"));
    if (method !== "initialize" && !connection.isReady) {
      const message = connection.state === "new" ? "send initialize first" : "send the initialized notification first";
      return connection.refuse(id, rpcError("notInitialized", message));
    }
    if (!this.schema.has("clientRequests", method)) {
      return connection.refuse(id, rpcError("methodNotFound", `unknown method ${JSON.stringify(method.slice(0, 100))}`));
    }
    const problem = this.schema.check("clientRequests", method, "params", params);
    if (problem) return connection.refuse(id, rpcError("invalidParams", problem));
    const inFlight = connection.accept(id, method);
    this.track(inFlight);
    const ctx: RequestContext = {
      requestId: id,
      connection,
      server: this,
      context: this.context,
      services: this.services,
      log: connection.log,
      signal: inFlight.signal,
      afterAnswer: (run) => inFlight.afterAnswer(run),
    };
    const handler = this.handlers[method as keyof HandlerTable] as (params: unknown, ctx: RequestContext) => unknown;
    const fail = (error: unknown) => inFlight.settle({ error: this.classify(method, error).toWire() });
    let value: unknown;
    try {
      value = handler(params, ctx);
    } catch (error) {
      fail(error);
      return;
    }
    // A synchronous answer goes out at once, keeping answers in request order where handlers allow it.
    if (value instanceof Promise) value.then((result) => inFlight.settle({ result }), fail);
    else inFlight.settle({ result: value });
  }

  private classify(method: string, error: unknown): AppServerError {
    if (error instanceof AppServerError) return error;
    this.context.log.error(`${method} failed`, error);
    const message = error instanceof Error ? error.message : String(error);
    return rpcError("internal", message.length > MAX_ERROR_MESSAGE ? `${message.slice(0, MAX_ERROR_MESSAGE)}...` : message);
  }
}
