import {
  AppServerError,
  Listeners,
  isErrorCode,
  type RequestId,
  type ServerNotificationMethod,
  type ServerNotificationParams,
  type ServerRequestMethod,
  type ServerRequestParams,
  type ServerRequestResult,
} from "@knightcode/app-server-protocol";
import { messageParts } from "@knightcode/system/util/item-json";
import type { Logger } from "../host/log.js";
import type { ServerTransport } from "../transport/types.js";
import { ServerRequestError } from "./errors.js";
import { InFlightRequest } from "./in-flight.js";
import { parseIncoming, type Incoming } from "./message.js";
import { Outbox, threadOf, type Timing } from "./outbox.js";
import { ThreadHolds, type SequencedEvent } from "./thread-holds.js";

export type ConnectionState = "new" | "initializing" | "ready" | "closed";

interface PendingServerRequest {
  method: string;
  resolve(result: unknown): void;
  reject(error: Error): void;
}

export interface ConnectionHooks {
  onRequest(connection: Connection, request: Extract<Incoming, { type: "request" }>): void;
  onClosed(connection: Connection): void;
  /** The handshake finished. */
  onReady?(connection: Connection): void;
}

let nextConnectionId = 1;

/**
 * One client: its handshake state, notification opt-outs, the requests it
 * has in flight and the requests the server has asked of it. It frames
 * nothing and knows no methods beyond the handshake's notification.
 */
export class Connection {
  readonly id = nextConnectionId++;
  private currentState: ConnectionState = "new";
  private optOut = new Set<string>();
  private holdRequests = false;
  private readonly inFlight = new Set<InFlightRequest>();
  private readonly serverRequests = new Map<RequestId, PendingServerRequest>();
  private nextServerRequestId = 1;
  private readonly closeListeners = new Listeners<[]>();
  private readonly detach: (() => void)[];
  /** What this client is sent while it falls behind reading. */
  private readonly outbox: Outbox;
  /** What waits about threads being replayed to this client. */
  private readonly holds = new ThreadHolds();
  private sequencedValue = false;
  private subagentsValue = false;
  readonly log: Logger;

  constructor(
    readonly transport: ServerTransport,
    readonly kind: "stdio" | "websocket" | "memory",
    private readonly hooks: ConnectionHooks,
    log: Logger,
  ) {
    this.log = log.child(`${kind}#${this.id}`);
    this.outbox = new Outbox(transport, (message, when) => this.write(message, when));
    this.detach = [
      transport.onMessage((text) => this.receive(text)),
      transport.onFault((fault) => this.notifyError(fault.message, fault.kind)),
      transport.onClose((reason) => this.handleClose(reason)),
      transport.onDrain(() => this.outbox.drained()),
    ];
  }

  /**
   * Runs `listener` once when the connection closes (at once if it already
   * has). The returned disposer removes it: a thread that stops watching a
   * connection must call it, or the connection keeps the thread alive.
   */
  onClose(listener: () => void): () => void {
    if (this.currentState === "closed") {
      listener();
      return () => undefined;
    }
    return this.closeListeners.add(listener);
  }

  get state(): ConnectionState {
    return this.currentState;
  }

  get isReady(): boolean {
    return this.currentState === "ready";
  }

  /** The `initialize` request was accepted: record what the client opted into or out of and wait for `initialized`. */
  beginInitialize(options: { optOutNotifications?: readonly string[]; holdRequests?: boolean } = {}): void {
    this.optOut = new Set(options.optOutNotifications ?? []);
    this.holdRequests = options.holdRequests === true;
    this.currentState = "initializing";
  }

  /** Whether what this client is asked outlives it (the `holdRequests` capability): see asking/asker.ts. */
  get holdsRequests(): boolean {
    return this.holdRequests;
  }

  /** `initialize` asked for `capabilities.sequenced`: notifications about a thread carry their seq. */
  useSequence(): void {
    this.sequencedValue = true;
  }

  get sequenced(): boolean {
    return this.sequencedValue;
  }

  /** `initialize` asked for `capabilities.subagents`: a subscriber of a thread also hears its sub-agents (see ThreadCore.send). */
  useSubagents(): void {
    this.subagentsValue = true;
  }

  get subagents(): boolean {
    return this.subagentsValue;
  }

  /** A notification; `seq`, the thread's number for it, is added only for a sequenced client. */
  notify<M extends ServerNotificationMethod>(method: M, params: ServerNotificationParams<M>, seq?: number): void {
    if (this.currentState === "closed" || this.optOut.has(method)) return;
    // Connection-level errors (a malformed line) may precede the handshake; everything else waits for it.
    if (this.currentState !== "ready" && method !== "error") return;
    const sent = (seq !== undefined && this.sequencedValue ? { ...params, seq } : params) as Record<string, unknown>;
    const waiting = this.holds.queueOf(threadOf(sent));
    if (waiting) waiting.push(() => this.outbox.notify(method, sent));
    else this.outbox.notify(method, sent);
  }

  /**
   * Holds everything this client is sent about `threadId` until the
   * returned release runs, which sends `replay` first: undefined when a
   * replay of that thread to this client is under way already.
   */
  holdForReplay(threadId: string): ((replay: readonly SequencedEvent[]) => void) | undefined {
    if (!this.holds.hold(threadId)) return undefined;
    return (replay) =>
      this.holds.release(threadId, () => {
        for (const event of replay) this.notify(event.method, event.params as never, event.seq);
      });
  }

  notifyError(message: string, kind: string): void {
    this.notify("error", { message, kind });
  }

  /** Asks the client something; rejects when the signal aborts (withdrawing it) or the connection closes. */
  request<M extends ServerRequestMethod>(method: M, params: ServerRequestParams<M>, options: { signal?: AbortSignal } = {}): Promise<ServerRequestResult<M>> {
    if (this.currentState === "closed") return Promise.reject(new ServerRequestError("closed", `${method}: the connection is closed`));
    const id = `s${this.nextServerRequestId++}`;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        if (!this.serverRequests.delete(id)) return;
        this.notify("serverRequest/cancelled", { requestId: id });
        reject(new ServerRequestError("withdrawn", `${method} withdrawn`));
      };
      if (options.signal?.aborted) return onAbort();
      options.signal?.addEventListener("abort", onAbort, { once: true });
      this.serverRequests.set(id, {
        method,
        resolve: (result) => {
          options.signal?.removeEventListener("abort", onAbort);
          resolve(result as ServerRequestResult<M>);
        },
        reject: (error) => {
          options.signal?.removeEventListener("abort", onAbort);
          reject(error);
        },
      });
      const threadId = (params as { threadId?: unknown }).threadId;
      const about = typeof threadId === "string" ? threadId : undefined;
      const waiting = this.holds.queueOf(about);
      if (waiting) waiting.push(() => this.outbox.request(about, { id, method, params }));
      else this.outbox.request(about, { id, method, params });
    });
  }

  /** Registers an accepted request so shutdown can wait for it and answer it at the deadline. */
  accept(id: RequestId, method: string): InFlightRequest {
    const request = new InFlightRequest(id, method, (message) => this.write(message));
    this.inFlight.add(request);
    void request.settled.then(() => this.inFlight.delete(request));
    return request;
  }

  /** Answers a request that was never accepted (refused before dispatch). */
  refuse(id: RequestId, error: AppServerError): void {
    this.write({ id, error: error.toWire() });
  }

  pendingRequests(): InFlightRequest[] {
    return [...this.inFlight].filter((request) => !request.done);
  }

  close(reason?: Error): void {
    this.transport.close(reason);
  }

  /** `soon`, `later` and `together`: see ServerTransport.sendSoon, sendLater and sendTogether. */
  private write(message: Record<string, unknown>, when: Timing = "now"): void {
    if (this.currentState === "closed") return;
    let parts: string[] | undefined;
    let text = "";
    try {
      parts = messageParts(message);
      if (parts === undefined) text = JSON.stringify(message);
    } catch (error) {
      this.log.error("could not serialize an outgoing message", error);
      return;
    }
    if (parts === undefined) {
      if (when === "soon" && this.transport.sendSoon) this.transport.sendSoon(text);
      else if (when === "later" && this.transport.sendLater) this.transport.sendLater(text);
      else if (when === "together" && this.transport.sendTogether) this.transport.sendTogether(text);
      else this.transport.send(text);
    } else if (this.transport.sendParts) this.transport.sendParts(parts);
    else this.transport.send(parts.join(""));
  }

  private receive(text: string): void {
    const incoming = parseIncoming(text);
    switch (incoming.type) {
      case "invalid":
        this.notifyError(incoming.message, "parseError");
        return;
      case "request":
        this.hooks.onRequest(this, incoming);
        return;
      case "notification":
        this.receiveNotification(incoming.method);
        return;
      case "response":
        this.receiveResponse(incoming);
        return;
    }
  }

  private receiveNotification(method: string): void {
    if (method === "initialized") {
      if (this.currentState === "initializing") {
        this.currentState = "ready";
        this.hooks.onReady?.(this);
      } else if (this.currentState === "new") this.notifyError("initialized arrived before the initialize request", "notInitialized");
      return;
    }
    this.notifyError(`unknown notification ${JSON.stringify(method.slice(0, 100))}`, "methodNotFound");
  }

  private receiveResponse(response: Extract<Incoming, { type: "response" }>): void {
    const pending = this.serverRequests.get(response.id);
    if (!pending) {
      // A withdrawn request can cross its answer on the wire; only ids never issued are worth reporting.
      if (!this.wasIssued(response.id))
        this.notifyError(`a response to request ${JSON.stringify(response.id)}, which the server never sent`, "unknownResponse");
      return;
    }
    this.serverRequests.delete(response.id);
    if (response.error !== undefined) {
      const error = response.error as { code?: unknown; message?: unknown; data?: unknown };
      pending.reject(
        new AppServerError({
          code: isErrorCode(error?.code) ? error.code : "internal",
          message: typeof error?.message === "string" ? error.message : "the client answered an error",
          ...(error?.data && typeof error.data === "object" ? { data: error.data as Record<string, unknown> } : {}),
        }),
      );
    } else {
      pending.resolve(response.result);
    }
  }

  private wasIssued(id: RequestId): boolean {
    if (typeof id !== "string" || !/^s[1-9]\d*$/.test(id)) return false;
    return Number(id.slice(1)) < this.nextServerRequestId;
  }

  private handleClose(reason?: Error): void {
    if (this.currentState === "closed") return;
    this.currentState = "closed";
    if (reason) this.log.info(`connection closed: ${reason.message}`);
    for (const request of this.inFlight) request.abandon("connection closed");
    this.inFlight.clear();
    for (const pending of this.serverRequests.values()) pending.reject(new ServerRequestError("closed", `${pending.method}: the connection closed`));
    this.serverRequests.clear();
    for (const undo of this.detach.splice(0)) undo();
    this.hooks.onClosed(this);
    this.closeListeners.emit();
    this.closeListeners.clear();
  }
}
