import type {
  AnyServerNotification,
  ClientNotificationMethod,
  ClientNotificationParams,
  ClientRequestMethod,
  ClientRequestParams,
  ClientRequestResult,
  RequestId,
  ServerNotificationMethod,
  ServerNotificationParams,
  ServerRequestMethod,
  ServerRequestParams,
  ServerRequestResult,
  WireError,
} from "@knightcode/app-server-protocol";
import { AppServerError, ClientError } from "./errors.js";
import type { MessageTransport } from "@knightcode/app-server-protocol";
import {
  readPayload,
  resolveItem,
  resolveTurn,
  type PayloadRef,
  type ReadPayloadOptions,
  type ResolvedItem,
  type ResolvedTurn,
  type WireItem,
  type WireTurn,
} from "./payloads.js";
import type { ClientOptions, HandlerErrorContext, RequestOptions, ServerRequestContext, WaitOptions } from "./client-options.js";
import { runTurn, type TurnInput, type TurnRunFor } from "./turn-run.js";
import type { InterceptedRequest, RequestInterceptor, TurnOptions } from "./turn-requests.js";

export type { ClientOptions, HandlerErrorContext, MessageTap, RequestOptions, ServerRequestContext, WaitOptions } from "./client-options.js";
export type { TurnEvent, TurnInput, TurnRun, TurnRunFor } from "./turn-run.js";
export type { InterceptedRequest, RequestInterceptor, TurnOptions, TurnRequest, TurnRequestEvent } from "./turn-requests.js";

type NotificationHandler = (params: unknown, method: string) => void;
type ServerRequestHandler = (params: unknown, context: ServerRequestContext) => unknown;

interface Pending {
  method: string;
  resolve(result: unknown): void;
  reject(error: Error): void;
  cleanup(): void;
}

/**
 * A connection over any transport. It imports nothing of Node, so a page can
 * bundle it; the Node entry's subclass (node-client.ts) adds the factories
 * that spawn a server or open a `ws` socket.
 */
export class AppServerClient<T extends MessageTransport = MessageTransport> {
  private nextId = 1;
  private readonly pending = new Map<RequestId, Pending>();
  private readonly notificationHandlers = new Map<string, Set<NotificationHandler>>();
  private readonly anyNotificationHandlers = new Set<NotificationHandler>();
  private readonly requestHandlers = new Map<string, ServerRequestHandler>();
  private readonly requestInterceptors = new Set<RequestInterceptor>();
  private readonly serverRequests = new Map<RequestId, AbortController>();
  private readonly handlerErrorHooks = new Set<(error: unknown, context: HandlerErrorContext) => void>();
  private closeReason: Error | undefined;
  private isClosed = false;
  /** Initialized with `capabilities.sequenced`: the last seq seen of each thread, for `thread/resume`'s afterSeq. */
  private seqs: Map<string, number> | undefined;
  /** Resolves when the transport closed, with the reason if it was not a clean close. */
  readonly closed: Promise<Error | undefined>;

  constructor(
    readonly transport: T,
    private readonly options: ClientOptions = {},
  ) {
    let markClosed!: (reason: Error | undefined) => void;
    this.closed = new Promise((resolve) => (markClosed = resolve));
    if (options.onHandlerError) this.handlerErrorHooks.add(options.onHandlerError);
    transport.onMessage((text) => this.receive(text));
    transport.onClose((reason) => {
      this.isClosed = true;
      this.closeReason = reason;
      for (const pending of this.pending.values()) {
        pending.cleanup();
        const why = reason ? `: ${reason.message}` : "";
        pending.reject(new ClientError("closed", `connection closed before ${pending.method} was answered${why}`, undefined, reason));
      }
      this.pending.clear();
      for (const controller of this.serverRequests.values()) controller.abort();
      this.serverRequests.clear();
      markClosed(reason);
    });
  }

  /** Performs the handshake: `initialize`, then the `initialized` notification. */
  async initialize(params: ClientRequestParams<"initialize">, options?: RequestOptions): Promise<ClientRequestResult<"initialize">> {
    if (params.capabilities?.sequenced === true) this.seqs ??= new Map();
    const result = await this.request("initialize", params, options);
    this.notify("initialized", {});
    return result;
  }

  request<M extends ClientRequestMethod>(method: M, params: ClientRequestParams<M>, options: RequestOptions = {}): Promise<ClientRequestResult<M>> {
    if (this.isClosed) return Promise.reject(new ClientError("closed", `connection closed; ${method} not sent`));
    const id = this.nextId++;
    return new Promise<ClientRequestResult<M>>((resolve, reject) => {
      const timeoutMs = options.timeoutMs ?? this.options.requestTimeoutMs;
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              this.pending.delete(id);
              reject(new ClientError("timeout", `${method} not answered within ${timeoutMs} ms`));
            }, timeoutMs);
      const onAbort = () => {
        this.pending.delete(id);
        cleanup();
        reject(new ClientError("aborted", `${method} aborted`));
      };
      const cleanup = () => {
        if (timer) clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
      };
      options.signal?.addEventListener("abort", onAbort, { once: true });
      this.pending.set(id, { method, resolve: resolve as (r: unknown) => void, reject, cleanup });
      this.write({ id, method, params });
    });
  }

  notify<M extends ClientNotificationMethod>(method: M, params: ClientNotificationParams<M>): void {
    this.write({ method, params });
  }

  onNotification<M extends ServerNotificationMethod>(method: M, handler: (params: ServerNotificationParams<M>) => void): () => void {
    let set = this.notificationHandlers.get(method);
    if (!set) this.notificationHandlers.set(method, (set = new Set()));
    const wrapped = handler as NotificationHandler;
    set.add(wrapped);
    return () => set.delete(wrapped);
  }

  /**
   * The params of the next `method` notification that `predicate` accepts
   * (any, without one). Rejects with a `timeout`, `aborted` or `closed`
   * ClientError; the subscription ends either way.
   */
  waitFor<M extends ServerNotificationMethod>(
    method: M,
    predicate: (params: ServerNotificationParams<M>) => boolean = () => true,
    options: WaitOptions = {},
  ): Promise<ServerNotificationParams<M>> {
    if (this.isClosed) return Promise.reject(new ClientError("closed", `connection closed; no ${method} will come`));
    if (options.signal?.aborted) return Promise.reject(new ClientError("aborted", `wait for ${method} aborted`));
    return new Promise((resolve, reject) => {
      const finish = (settle: () => void) => {
        unsubscribe();
        if (timer) clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
        closeWatch.cancelled = true;
        settle();
      };
      const unsubscribe = this.onNotification(method, (params) => {
        let matched: boolean;
        try {
          matched = predicate(params);
        } catch (error) {
          finish(() => reject(error));
          return;
        }
        if (matched) finish(() => resolve(params));
      });
      const timer =
        options.timeoutMs === undefined
          ? undefined
          : setTimeout(() => finish(() => reject(new ClientError("timeout", `no ${method} within ${options.timeoutMs} ms`))), options.timeoutMs);
      const onAbort = () => finish(() => reject(new ClientError("aborted", `wait for ${method} aborted`)));
      options.signal?.addEventListener("abort", onAbort, { once: true });
      const closeWatch = { cancelled: false };
      void this.closed.then(() => {
        if (!closeWatch.cancelled) finish(() => reject(new ClientError("closed", `connection closed before ${method} came`)));
      });
    });
  }

  /**
   * Starts a turn and follows it: resolves once the turn has started with its
   * id, its notifications as an async iterable, and a promise of the turn as
   * `turn/completed` reports it. Rejects with the `turn/start` error, or with
   * a `notStarted` ClientError when the input started no turn (a command or
   * an extension handled it). With `requests: true`, the turn's server
   * requests come through its events instead of the `onRequest` handlers.
   */
  runTurn<O extends TurnOptions = RequestOptions>(threadId: string, input: TurnInput, options?: O): Promise<TurnRunFor<O>> {
    return runTurn(this, threadId, input, options) as Promise<TurnRunFor<O>>;
  }

  /**
   * The last `seq` this connection saw of a thread: what `thread/resume`
   * takes as `afterSeq` to replay what came after. Undefined unless the
   * connection was initialized with `capabilities.sequenced`, or before
   * anything numbered about the thread arrived.
   */
  lastSeq(threadId: string): number | undefined {
    return this.seqs?.get(threadId);
  }

  /** Every notification, whatever its method. */
  onAnyNotification(handler: (...notification: AnyServerNotification) => unknown): () => void {
    const wrapped: NotificationHandler = (params, method) => handler(...([method, params] as AnyServerNotification));
    this.anyNotificationHandlers.add(wrapped);
    return () => this.anyNotificationHandlers.delete(wrapped);
  }

  /** Answers a server request; without a handler the client answers `methodNotFound`. */
  onRequest<M extends ServerRequestMethod>(
    method: M,
    handler: (params: ServerRequestParams<M>, context: ServerRequestContext) => ServerRequestResult<M> | Promise<ServerRequestResult<M>>,
  ): () => void {
    this.requestHandlers.set(method, handler as ServerRequestHandler);
    return () => {
      if (this.requestHandlers.get(method) === handler) this.requestHandlers.delete(method);
    };
  }

  /** Sees each server request before the handlers do; one it takes reaches no handler. Returns its removal. */
  interceptRequests(interceptor: RequestInterceptor): () => void {
    this.requestInterceptors.add(interceptor);
    return () => this.requestInterceptors.delete(interceptor);
  }

  /** Like the `onHandlerError` option, added later; returns its removal. */
  onHandlerError(hook: (error: unknown, context: HandlerErrorContext) => void): () => void {
    this.handlerErrorHooks.add(hook);
    return () => this.handlerErrorHooks.delete(hook);
  }

  /** A large value's bytes, read chunk by chunk with `payload/read` until `eof`. */
  readPayload(ref: string | PayloadRef, options?: ReadPayloadOptions): Promise<Buffer> {
    return readPayload(this, ref, options);
  }

  /** An item with its payload references replaced by their values. */
  resolveItem(item: WireItem, options?: ReadPayloadOptions): Promise<ResolvedItem> {
    return resolveItem(this, item, options);
  }

  /** A turn (and its items) with payload references replaced by their values. */
  resolveTurn(turn: WireTurn, options?: ReadPayloadOptions): Promise<ResolvedTurn> {
    return resolveTurn(this, turn, options);
  }

  /** Sends one raw line, malformed or not: for tests and tools that probe the server. */
  sendRaw(text: string): void {
    this.transport.send(text);
  }

  close(): Promise<Error | undefined> {
    this.transport.close();
    return this.closed;
  }

  get isConnectionClosed(): boolean {
    return this.isClosed;
  }

  get closeError(): Error | undefined {
    return this.closeReason;
  }

  private write(message: Record<string, unknown>): void {
    this.options.tap?.outgoing?.(message);
    this.transport.send(JSON.stringify(message));
  }

  private receive(text: string): void {
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(text) as Record<string, unknown>;
    } catch {
      this.options.tap?.invalid?.(text);
      return;
    }
    if (message === null || typeof message !== "object" || Array.isArray(message)) {
      this.options.tap?.invalid?.(text);
      return;
    }
    this.options.tap?.incoming?.(message);
    const { id, method } = message as { id?: RequestId; method?: string };
    if (typeof method === "string") {
      if (id !== undefined) this.handleServerRequest(id, method, message.params);
      else this.dispatchNotification(method, message.params);
      return;
    }
    if (id === undefined) return;
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    pending.cleanup();
    if ("error" in message) pending.reject(new AppServerError(message.error as WireError));
    else pending.resolve(message.result);
  }

  private dispatchNotification(method: string, params: unknown): void {
    if (this.seqs) noteSeq(this.seqs, params);
    if (method === "serverRequest/cancelled") {
      const requestId = (params as { requestId?: RequestId } | undefined)?.requestId;
      if (requestId !== undefined) {
        this.serverRequests.get(requestId)?.abort();
        this.serverRequests.delete(requestId);
      }
    }
    for (const handler of this.notificationHandlers.get(method) ?? []) handler(params, method);
    for (const handler of this.anyNotificationHandlers) handler(params, method);
  }

  private handleServerRequest(id: RequestId, method: string, params: unknown): void {
    if (this.requestInterceptors.size > 0 && this.offerRequest(id, method, params)) return;
    const handler = this.requestHandlers.get(method);
    if (!handler) {
      this.write({ id, error: { code: "methodNotFound", message: `this client does not handle ${method}` } });
      return;
    }
    const controller = new AbortController();
    this.serverRequests.set(id, controller);
    Promise.resolve()
      .then(() => handler(params, { requestId: id, signal: controller.signal }))
      .then(
        (result) => {
          if (this.serverRequests.get(id) !== controller) return;
          this.serverRequests.delete(id);
          this.write({ id, result: result ?? {} });
        },
        (error: unknown) => {
          if (this.serverRequests.get(id) !== controller) return;
          this.serverRequests.delete(id);
          if (!(error instanceof AppServerError)) {
            for (const hook of this.handlerErrorHooks) {
              try {
                hook(error, { method, params, requestId: id });
              } catch {
                // A hook that throws must not keep the server waiting for its answer.
              }
            }
          }
          const wire: WireError =
            error instanceof AppServerError
              ? { code: error.code, message: error.message, ...(error.data ? { data: error.data } : {}) }
              : { code: "internal", message: error instanceof Error ? error.message : String(error) };
          this.write({ id, error: wire });
        },
      );
  }

  private offerRequest(id: RequestId, method: string, params: unknown): boolean {
    const controller = new AbortController();
    const respond = (result: unknown) => {
      if (this.serverRequests.get(id) !== controller) return false;
      this.serverRequests.delete(id);
      this.write({ id, result: result ?? {} });
      return true;
    };
    const request: InterceptedRequest = { id, method, params, signal: controller.signal, respond };
    this.serverRequests.set(id, controller);
    for (const interceptor of this.requestInterceptors) if (interceptor(request)) return true;
    this.serverRequests.delete(id);
    return false;
  }
}

/** Keeps the highest seq seen of the thread a notification is about. */
function noteSeq(seqs: Map<string, number>, params: unknown): void {
  const { seq, threadId, thread } = (params ?? {}) as { seq?: unknown; threadId?: unknown; thread?: { id?: unknown } };
  const about = typeof threadId === "string" ? threadId : thread?.id;
  if (typeof seq !== "number" || typeof about !== "string") return;
  if (seq > (seqs.get(about) ?? 0)) seqs.set(about, seq);
}
