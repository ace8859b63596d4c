import type {
  AnyServerNotification,
  MessageTransport,
  ClientRequestMethod,
  ClientRequestParams,
  ClientRequestResult,
  ServerNotificationMethod,
  ServerNotificationParams,
  ServerRequestMethod,
  ServerRequestParams,
  ServerRequestResult,
  ThreadUi,
} from "@knightcode/app-server-protocol";
import { Listeners } from "@knightcode/app-server-protocol";
import {
  AppServerClient,
  type ClientOptions,
  type HandlerErrorContext,
  type RequestInterceptor,
  type RequestOptions,
  type ServerRequestContext,
  type TurnInput,
  type TurnOptions,
  type TurnRunFor,
  type WaitOptions,
} from "./client.js";
import { ClientError } from "./errors.js";
import { runTurn } from "./turn-run.js";
import type { WebSocketTransportOptions } from "./transports/websocket.js";

export interface ReconnectingOptions extends ClientOptions, Omit<WebSocketTransportOptions, "url"> {
  /** The server's URL; or give `readyFile`. */
  url?: string;
  /**
   * A `--listen-ready-file`: read before every attempt, so a server that came back on another port is found.
   * A file another user could have written, or one naming a listener elsewhere, is an `untrusted` ClientError.
   */
  readyFile?: string;
  /**
   * What `initialize` sends, on the first connection and on every reconnection. `capabilities.sequenced`
   * is sent as true unless this says false: a reconnection then replays what each open thread sent meanwhile.
   */
  initialize: ClientRequestParams<"initialize">;
  /** Waits between attempts; the last one repeats. Default 100, 250, 500, 1000, 2000 ms. */
  retryDelaysMs?: readonly number[];
  /**
   * With `readyFile`: how long `connect` waits for the file to name a server that answers (a server just
   * spawned has not written it yet), trying again after each of `retryDelaysMs`. Default 30,000 ms.
   */
  readyTimeoutMs?: number;
  /** Attempts per outage before giving up (then `closed` resolves with the last error). Default: no limit. */
  maxAttempts?: number;
  /** Opens the transport for a URL; a Node WebSocket by default. A page passes one over the browser's WebSocket. */
  connectTransport?: (url: string) => Promise<MessageTransport>;
}

/**
 * What the Node entry brings (node-reconnecting.ts): its WebSocket for a
 * client that names no transport, and reading a ready file. A page has
 * neither, so this module imports nothing of Node.
 */
export interface ReconnectingPlatform {
  connectWebSocket?(url: string, options: ReconnectingOptions): Promise<AppServerClient<MessageTransport>>;
  readReadyUrl?(path: string): Promise<string>;
}

/** One open thread after a reconnection: the `thread/resume` answer, or why it failed. */
export type ResumedThread = { threadId: string; ok: true; result: ClientRequestResult<"thread/resume"> } | { threadId: string; ok: false; error: Error };

type Installer = (client: AppServerClient) => () => void;

/**
 * A WebSocket client that survives the connection dropping or the server
 * restarting. It reconnects, initializes again, resumes every thread it had
 * open (started, resumed or forked through it, not yet unsubscribed), and
 * reinstalls its notification and server-request handlers on the new
 * connection, so a request the server asks again (an approval or dialog still
 * open after a dropped connection) reaches the same handler. Requests made
 * while it reconnects wait for the new connection. Each thread is resumed
 * with the last `seq` seen of it, so the notifications missed while away
 * reach the handlers (when the server still holds them: `replayed` in the
 * answer), and a `runTurn` follows its turn across the gap.
 */
export class ReconnectingClient {
  private current: AppServerClient<MessageTransport>;
  private readonly installers = new Set<{ install: Installer; uninstall?: () => void }>();
  private readonly threadUis = new Map<string, ThreadUi>();
  private readonly reconnects = new Listeners<[ResumedThread[]]>();
  private readonly disconnects = new Listeners<[Error | undefined]>();
  private ready: Promise<void> = Promise.resolve();
  /** Numbered notifications are asked for (the default). */
  private readonly sequenced: boolean;
  /** The last seq of each open thread as the connections before the current one saw it. */
  private readonly seen = new Map<string, number>();
  private stopped = false;
  private markClosed!: (reason: Error | undefined) => void;
  /** Resolves once `close()` was called, or reconnecting gave up (with the last error). */
  readonly closed: Promise<Error | undefined> = new Promise((resolve) => (this.markClosed = resolve));

  protected constructor(
    private readonly options: ReconnectingOptions,
    first: AppServerClient<MessageTransport>,
    private readonly platform: ReconnectingPlatform,
  ) {
    this.current = first;
    this.sequenced = options.initialize.capabilities?.sequenced !== false;
    this.watch(first);
  }

  /**
   * Connects and initializes; rejects when the first connection fails (an
   * `unauthorized` ClientError for a refused token, `untrusted` for a
   * listener that did not prove it holds the token or a ready file that is not ours).
   */
  static connect(options: ReconnectingOptions): Promise<ReconnectingClient> {
    return ReconnectingClient.connectOn(options, {});
  }

  protected static async connectOn(options: ReconnectingOptions, platform: ReconnectingPlatform): Promise<ReconnectingClient> {
    if (options.url === undefined && options.readyFile === undefined) throw new TypeError("ReconnectingClient needs url or readyFile");
    if (options.readyFile !== undefined && !platform.readReadyUrl) throw new TypeError("only the Node entry's ReconnectingClient reads a readyFile");
    if (!options.connectTransport && !platform.connectWebSocket) throw new TypeError("outside the Node entry, ReconnectingClient needs connectTransport");
    const client =
      options.readyFile === undefined ? await ReconnectingClient.open(options, platform) : await ReconnectingClient.openWhenReady(options, platform);
    return new ReconnectingClient(options, client, platform);
  }

  /**
   * The first connection through a ready file, which a server just spawned
   * has not written yet: tried again after each of the retry delays until it
   * leads to a server that answers, `maxAttempts` runs out (a `closed`
   * ClientError) or `readyTimeoutMs` passes (a `timeout` one), each with the
   * last failure as its cause. A file or listener that is not ours is
   * refused at once, as ever.
   */
  private static async openWhenReady(options: ReconnectingOptions, platform: ReconnectingPlatform): Promise<AppServerClient<MessageTransport>> {
    const deadline = Date.now() + (options.readyTimeoutMs ?? 30_000);
    for (let attempt = 1; ; attempt++) {
      try {
        return await ReconnectingClient.open(options, platform);
      } catch (error) {
        if (refusedForGood(error)) throw error;
        const cause = error instanceof Error ? error : new Error(String(error));
        const wait = retryDelay(options, attempt - 1);
        if (options.maxAttempts !== undefined && attempt >= options.maxAttempts) {
          throw new ClientError("closed", `no server answered through ${options.readyFile} in ${attempt} attempts: ${cause.message}`, undefined, cause);
        }
        if (Date.now() + wait > deadline) {
          throw new ClientError(
            "timeout",
            `no server answered through ${options.readyFile} within ${options.readyTimeoutMs ?? 30_000} ms: ${cause.message}`,
            undefined,
            cause,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  private static async open(options: ReconnectingOptions, platform: ReconnectingPlatform): Promise<AppServerClient<MessageTransport>> {
    // connectOn checked that the platform has what the options leave to it.
    const url = options.readyFile !== undefined ? await platform.readReadyUrl!(options.readyFile) : options.url!;
    const client =
      options.connectTransport !== undefined
        ? new AppServerClient(await options.connectTransport(url), options)
        : await platform.connectWebSocket!(url, options);
    try {
      const sequenced = options.initialize.capabilities?.sequenced !== false;
      const initialize = { ...options.initialize, capabilities: { ...options.initialize.capabilities, sequenced } };
      initializeResults.set(client, await client.initialize(initialize, { timeoutMs: options.requestTimeoutMs ?? 15_000 }));
    } catch (error) {
      await client.close();
      throw error;
    }
    return client;
  }

  /** The `initialize` answer of the connection in use now (a restarted server may answer differently). */
  get serverInfo(): ClientRequestResult<"initialize"> {
    return initializeResults.get(this.current)!;
  }

  /** The connection in use now; it changes on every reconnection. */
  get client(): AppServerClient<MessageTransport> {
    return this.current;
  }

  /** The threads that are resumed after a reconnection. */
  get openThreads(): string[] {
    return [...this.threadUis.keys()];
  }

  /** A thread's `ui` as its last `thread/start`, `thread/fork` or `thread/resume` answer gave it. */
  threadUi(threadId: string): ThreadUi | undefined {
    return this.threadUis.get(threadId);
  }

  /** Sends on the current connection, waiting for a reconnection in progress. Remembers threads opened and unsubscribed. */
  async request<M extends ClientRequestMethod>(method: M, params: ClientRequestParams<M>, options?: RequestOptions): Promise<ClientRequestResult<M>> {
    await this.ready;
    if (this.stopped) throw new ClientError("closed", `client closed; ${method} not sent`);
    const result = await this.current.request(method, params, options);
    this.remember(method, params, result);
    return result;
  }

  onNotification<M extends ServerNotificationMethod>(method: M, handler: (params: ServerNotificationParams<M>) => void): () => void {
    return this.add((client) => client.onNotification(method, handler));
  }

  onAnyNotification(handler: (...notification: AnyServerNotification) => unknown): () => void {
    return this.add((client) => client.onAnyNotification(handler));
  }

  onRequest<M extends ServerRequestMethod>(
    method: M,
    handler: (params: ServerRequestParams<M>, context: ServerRequestContext) => ServerRequestResult<M> | Promise<ServerRequestResult<M>>,
  ): () => void {
    return this.add((client) => client.onRequest(method, handler));
  }

  onHandlerError(hook: (error: unknown, context: HandlerErrorContext) => void): () => void {
    return this.add((client) => client.onHandlerError(hook));
  }

  /** After each reconnection, with every open thread's `thread/resume` answer (or error). */
  onReconnect(listener: (resumed: ResumedThread[]) => void): () => void {
    return this.reconnects.add(listener);
  }

  /** When a connection drops unasked, before reconnecting starts. */
  onDisconnect(listener: (reason: Error | undefined) => void): () => void {
    return this.disconnects.add(listener);
  }

  /** On the current connection: a reconnection ends the wait with a `closed` ClientError. */
  async waitFor<M extends ServerNotificationMethod>(
    method: M,
    predicate?: (params: ServerNotificationParams<M>) => boolean,
    options?: WaitOptions,
  ): Promise<ServerNotificationParams<M>> {
    await this.ready;
    return this.current.waitFor(method, predicate, options);
  }

  /**
   * Follows the turn across reconnections: the notifications missed are
   * replayed into it and it ends with its `turn/completed` (see
   * `TurnRun.completed` for a server that could not replay them); with
   * `requests: true`, a request asked again after a reconnection reaches its
   * events too. Without `sequenced`, on the current connection: a
   * reconnection mid-turn rejects `completed` with a `closed` ClientError.
   */
  async runTurn<O extends TurnOptions = RequestOptions>(threadId: string, input: TurnInput, options?: O): Promise<TurnRunFor<O>> {
    await this.ready;
    if (!this.sequenced) return this.current.runTurn<O>(threadId, input, options);
    return (await runTurn(this, threadId, input, options)) as TurnRunFor<O>;
  }

  /** Sees each server request before the handlers, on this connection and on every later one; returns its removal. */
  interceptRequests(interceptor: RequestInterceptor): () => void {
    return this.add((client) => client.interceptRequests(interceptor));
  }

  async close(): Promise<void> {
    this.stopped = true;
    await this.current.close();
    this.markClosed(undefined);
  }

  private add(install: Installer): () => void {
    const entry = { install, uninstall: install(this.current) as (() => void) | undefined };
    this.installers.add(entry);
    return () => {
      entry.uninstall?.();
      this.installers.delete(entry);
    };
  }

  private remember(method: string, params: unknown, result: unknown): void {
    if (method === "thread/start" || method === "thread/fork" || method === "thread/resume") {
      const { thread, ui } = result as { thread: { id: string }; ui: ThreadUi };
      this.threadUis.set(thread.id, ui);
    } else if (method === "thread/unsubscribe" || method === "thread/archive" || method === "thread/delete") {
      this.threadUis.delete((params as { threadId: string }).threadId);
      this.seen.delete((params as { threadId: string }).threadId);
    }
  }

  private watch(client: AppServerClient<MessageTransport>): void {
    void client.closed.then((reason) => {
      if (this.stopped || client !== this.current) return;
      this.disconnects.emit(reason);
      let release!: () => void;
      this.ready = new Promise((resolve) => (release = resolve));
      void this.reconnect(reason).finally(release);
    });
  }

  private async reconnect(reason: Error | undefined): Promise<void> {
    let lastError: Error | undefined = reason;
    for (let attempt = 0; this.options.maxAttempts === undefined || attempt < this.options.maxAttempts; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, retryDelay(this.options, attempt)));
      if (this.stopped) return;
      let client: AppServerClient<MessageTransport>;
      try {
        client = await ReconnectingClient.open(this.options, this.platform);
      } catch (error) {
        lastError = error instanceof Error ? error : new Error(String(error));
        if (refusedForGood(error)) break;
        continue;
      }
      if (this.stopped) {
        await client.close();
        return;
      }
      const previous = this.current;
      this.current = client;
      for (const entry of this.installers) entry.uninstall = entry.install(client);
      const resumed = await this.resumeAll(previous, client);
      this.watch(client);
      this.reconnects.emit(resumed);
      return;
    }
    this.stopped = true;
    this.markClosed(lastError ?? new ClientError("closed", "could not reconnect"));
  }

  /**
   * Resumes every open thread on `client`, each after the last seq seen of
   * it. A replay follows its answer on the connection; when one did, a last
   * round trip makes sure every replayed notification has reached the
   * handlers before the reconnect listeners hear of the answers.
   */
  private async resumeAll(previous: AppServerClient<MessageTransport>, client: AppServerClient<MessageTransport>): Promise<ResumedThread[]> {
    const resumed: ResumedThread[] = [];
    for (const threadId of this.openThreads) {
      const afterSeq = this.sequenced ? (previous.lastSeq(threadId) ?? this.seen.get(threadId)) : undefined;
      try {
        const result = await client.request("thread/resume", afterSeq === undefined ? { threadId } : { threadId, afterSeq });
        this.threadUis.set(threadId, result.ui);
        // Replayed, the new connection goes on from where the old one was; a snapshot starts afresh.
        if (result.replayed === true && afterSeq !== undefined) this.seen.set(threadId, afterSeq);
        else this.seen.delete(threadId);
        resumed.push({ threadId, ok: true, result });
      } catch (error) {
        resumed.push({ threadId, ok: false, error: error instanceof Error ? error : new Error(String(error)) });
      }
    }
    if (resumed.some((entry) => entry.ok && entry.result.replayed === true)) await client.request("server/diagnostics", {}).catch(() => undefined);
    return resumed;
  }
}

const DEFAULT_RETRY_DELAYS_MS = [100, 250, 500, 1000, 2000];

/** The wait before attempt `attempt` (from 0): the configured delays, the last one repeating. */
function retryDelay(options: ReconnectingOptions, attempt: number): number {
  const delays = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
  return delays[Math.min(attempt, delays.length - 1)] ?? 1000;
}

/** A refused token, or a listener or ready file that is not ours, will not fix itself: no attempt is made after it. */
function refusedForGood(error: unknown): boolean {
  return error instanceof ClientError && (error.kind === "unauthorized" || error.kind === "untrusted");
}

const initializeResults = new WeakMap<AppServerClient<MessageTransport>, ClientRequestResult<"initialize">>();
