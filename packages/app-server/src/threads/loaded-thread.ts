import {
  boundErrorMessage,
  type SessionEvent,
  type SessionFile,
  type ThreadRuntime,
  type TokenUsage,
  type Warning,
} from "@knightcode/agent";
import type { ServerNotificationMethod, ServerNotificationParams } from "@knightcode/app-server-protocol";
import type { Logger } from "../log.js";
import type { Connection } from "../rpc/connection.js";
import { LiveTurnItems } from "../turns/live-items.js";
import type { Item } from "../turns/item-shapes.js";
import type { UiBridge } from "../ui/bridge.js";
import { TurnControl } from "./turn-control.js";
import { ApprovalGate } from "../approvals/gate.js";
import type { PayloadSink } from "../payloads/store.js";
import { itemForWire, type WireItem } from "../payloads/refs.js";
import { derivedName, isoTime, validApprovalMode, type ApprovalMode, type ThreadObject, type ThreadStatus } from "./thread-object.js";

export interface Broadcaster {
  broadcast<M extends ServerNotificationMethod>(method: M, params: ServerNotificationParams<M>): void;
}

export interface TurnSummary {
  id: string;
  status: "inProgress" | "completed" | "failed" | "interrupted";
  startedAt: number;
  completedAt?: number;
  error?: { message: string; kind: "auth" | "rateLimit" | "contextOverflow" | "network" | "provider" | "other" };
  items?: Item[];
}

interface RunningTurn {
  turnId: string;
  startedAt: number;
  requestId?: string;
  items: LiveTurnItems;
}


export interface LoadedThreadOptions {
  file: SessionFile;
  runtime: ThreadRuntime;
  ui: UiBridge;
  warnings: Warning[];
  broadcaster: Broadcaster;
  log: Logger;
  defaultApprovalMode: ApprovalMode;
  /** The thread can no longer write its file: the manager closes it. */
  onFatal(thread: LoadedThread, error: Error): void;
  modelError(error: unknown): Error;
  payloads(): PayloadSink;
}

/**
 * A thread loaded in this process: its runtime, its subscribers and its
 * live state (status, the running turn's items). Session events become
 * protocol notifications here: turn and item notifications to subscribers,
 * sidebar notifications to every connection.
 */
export class LoadedThread {
  readonly id: string;
  readonly file: SessionFile;
  readonly runtime: ThreadRuntime;
  readonly ui: UiBridge;
  readonly loadWarnings: Warning[];
  readonly log: Logger;
  private readonly subscribers = new Set<Connection>();
  private statusValue: ThreadStatus = { type: "idle" };
  private running: RunningTurn | undefined;
  readonly turns: TurnControl;
  readonly gate: ApprovalGate;
  private approvalsOpen = 0;
  /** When a subscriber or a turn last came or went: the idle clock starts there. */
  private lastActivity = Date.now();
  /** Requests working on the thread (opening, resuming): it is not idle while any does. */
  private holds = 0;
  private approval: ApprovalMode;
  private nameValue: string;
  private explicitName = false;
  private closed = false;
  /** The connection that most recently started work here: approvals ask it first. */
  lastInitiator: Connection | undefined;

  constructor(private readonly options: LoadedThreadOptions) {
    this.file = options.file;
    this.id = options.file.header.id;
    this.runtime = options.runtime;
    this.ui = options.ui;
    this.loadWarnings = options.warnings;
    this.log = options.log;
    const state = this.file.summary();
    this.approval = validApprovalMode(state.approvalMode ?? options.defaultApprovalMode);
    this.explicitName = state.name !== undefined;
    this.nameValue = state.name ?? derivedName(state.firstUserText);
    this.turns = new TurnControl({
      id: this.id,
      runtime: this.runtime,
      log: options.log,
      subscribe: (connection) => this.subscribe(connection),
      queueChanged: () => this.sendQueue(),
      dropped: (message, clientMessageId) => this.send("error", { message, kind: "queuedInputDropped", threadId: this.id, ...(clientMessageId ? { clientMessageId } : {}) }),
      modelError: options.modelError,
    });
    this.gate = new ApprovalGate({
      threadId: this.id,
      cwd: this.file.header.cwd,
      approvalMode: () => this.approval,
      isBuiltinTool: (name) => this.runtime.isBuiltinTool(name),
      turnId: () => this.running?.turnId,
      subscribers: () => [...this.subscribers],
      lastInitiator: () => this.lastInitiator,
      waiting: (open) => this.setWaiting(open),
      record: (entry) => this.runtime.session.appendSafely({ type: "approval", ...entry }),
      interruptTurn: () => this.turns.interrupt(),
      payloads: () => options.payloads(),
    });
    this.runtime.session.subscribe((event) => this.onSessionEvent(event));
  }

  private setWaiting(open: boolean): void {
    this.approvalsOpen += open ? 1 : -1;
    if (this.statusValue.type === "active" || this.running) {
      this.setStatus({ type: "active", waitingOn: this.approvalsOpen > 0 ? ["approval"] : [] });
    }
  }

  get status(): ThreadStatus {
    return this.statusValue;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  get name(): string {
    return this.nameValue;
  }

  get approvalMode(): ApprovalMode {
    return this.approval;
  }

  /** A start, a turn or its settlement holds the thread. */
  get isRunning(): boolean {
    return this.turns.busy;
  }

  get runningTurnId(): string | undefined {
    return this.running?.turnId;
  }

  get usage(): TokenUsage {
    return this.runtime.session.usage;
  }

  get hasSubscribers(): boolean {
    return this.subscribers.size > 0;
  }

  /** Keeps the thread from unloading until the returned release is called (once). */
  hold(): () => void {
    this.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
      this.lastActivity = Date.now();
    };
  }

  /** Since when nobody watches and nothing runs or waits; undefined while anything does. */
  idleSince(): number | undefined {
    if (this.closed || this.holds > 0 || this.subscribers.size > 0 || this.isRunning || this.turns.hasQueued) return undefined;
    return this.lastActivity;
  }

  thread(): ThreadObject {
    const session = this.runtime.session;
    const header = this.file.header;
    const model = session.model;
    return {
      id: this.id,
      name: this.nameValue,
      cwd: header.cwd,
      createdAt: header.createdAt,
      updatedAt: isoTime(this.file.updatedAt),
      ...(header.forkedFromId ? { forkedFromId: header.forkedFromId } : {}),
      sessionFile: this.file.path,
      status: this.statusValue,
      workspace: { mode: "local" },
      model: model ? { provider: model.provider, id: model.id } : null,
      thinkingLevel: (model && !model.reasoning ? "off" : session.thinkingLevel) as ThreadObject["thinkingLevel"],
      approvalMode: this.approval,
    };
  }

  /** The running turn as it stands: for thread/resume's `runningTurn`. */
  runningTurn(): TurnSummary | undefined {
    const running = this.running;
    if (!running) return undefined;
    return { id: running.turnId, status: "inProgress", startedAt: running.startedAt, items: running.items.snapshot() };
  }

  subscribe(connection: Connection): void {
    if (this.closed || connection.state === "closed" || this.subscribers.has(connection)) return;
    this.subscribers.add(connection);
    this.lastActivity = Date.now();
    void connection.closed.then(() => {
      if (this.subscribers.delete(connection)) this.lastActivity = Date.now();
      this.gate.subscriberLeft(connection);
    });
  }

  /** A client resumed the thread: it subscribes, and an approval waiting on another client moves to it. */
  resumedBy(connection: Connection): void {
    this.subscribe(connection);
    this.gate.subscriberResumed(connection);
  }

  unsubscribe(connection: Connection): boolean {
    const was = this.subscribers.delete(connection);
    if (was) {
      this.lastActivity = Date.now();
      this.gate.subscriberLeft(connection);
    }
    return was;
  }

  isSubscribed(connection: Connection): boolean {
    return this.subscribers.has(connection);
  }

  /** A notification to this thread's subscribers. */
  send<M extends ServerNotificationMethod>(method: M, params: ServerNotificationParams<M>): void {
    for (const connection of this.subscribers) connection.notify(method, params);
  }

  private setStatus(status: ThreadStatus): void {
    if (JSON.stringify(status) === JSON.stringify(this.statusValue)) return;
    this.statusValue = status;
    this.options.broadcaster.broadcast("thread/status/changed", { threadId: this.id, status });
  }

  /** A warning after load (an extension failed): to subscribers. */
  warn(warning: Warning): void {
    this.send("warning", { threadId: this.id, warning });
  }

  setName(name: string): void {
    this.runtime.session.appendSafely({ type: "thread_name", name });
    this.explicitName = true;
    this.updateName(name);
  }

  private updateName(name: string): void {
    if (name === this.nameValue) return;
    this.nameValue = name;
    this.options.broadcaster.broadcast("thread/name/updated", { threadId: this.id, name });
  }

  setApprovalMode(mode: ApprovalMode): void {
    this.runtime.session.appendSafely({ type: "approval_mode", mode });
    this.approval = mode;
  }

  private onSessionEvent(event: SessionEvent): void {
    const running = this.running;
    switch (event.type) {
      case "turn_start":
        this.onTurnStart(event.turnId, event.startedAt);
        return;
      case "turn_end":
        this.onTurnEnd(event);
        return;
      case "usage":
        this.send("thread/tokenUsage/updated", { threadId: this.id, ...(event.turnId ? { turnId: event.turnId } : {}), usage: event.usage });
        return;
      case "retry":
        this.send("turn/retrying", {
          threadId: this.id,
          turnId: event.turnId,
          attempt: event.attempt,
          maxAttempts: event.maxAttempts,
          delayMs: event.delayMs,
          error: { message: boundErrorMessage(event.error.message), kind: event.error.kind },
        });
        return;
      case "fatal":
        this.fail(event.error);
        return;
      case "steering_changed":
        this.sendQueue();
        return;
      case "message_end":
        if (!this.explicitName && this.nameValue === "" && event.message.role === "user") {
          this.updateName(derivedName(this.file.summary().firstUserText));
        }
        break;
      default:
        break;
    }
    running?.items.handle(event);
  }

  /** The steering and queued inputs as they stand. */
  queue(): { steering: string[]; followUp: { id: string; text: string; attachments?: number }[] } {
    return { steering: this.runtime.session.pendingSteers(), followUp: this.turns.queueSnapshot() };
  }

  private sendQueue(): void {
    this.send("turn/queue/updated", { threadId: this.id, ...this.queue() });
  }

  private onTurnStart(turnId: string, startedAt: number): void {
    const pending = this.turns.onTurnStarted(turnId);
    const send = (method: ServerNotificationMethod, params: Record<string, unknown>) =>
      this.send(method as never, { threadId: this.id, turnId, ...params } as never);
    const items = new LiveTurnItems(
      turnId,
      {
        started: (item) => send("item/started", { item: itemForWire(item as WireItem, this.options.payloads()) }),
        completed: (item) => send("item/completed", { item: itemForWire(item as WireItem, this.options.payloads()) }),
        removed: (itemId) => send("item/removed", { itemId }),
        agentDelta: (itemId, delta) => send("item/agentMessage/delta", { itemId, delta }),
        reasoningDelta: (itemId, delta) => send("item/reasoning/delta", { itemId, delta }),
      },
      pending.clientMessageId,
      (callId) => this.gate.declined.has(callId),
    );
    this.running = { turnId, startedAt, items, ...(pending.requestId ? { requestId: pending.requestId } : {}) };
    this.setStatus({ type: "active", waitingOn: [] });
    this.send("turn/started", {
      threadId: this.id,
      turn: { id: turnId, status: "inProgress", startedAt },
      ...(pending.requestId ? { requestId: pending.requestId } : {}),
    });
  }

  private onTurnEnd(event: Extract<SessionEvent, { type: "turn_end" }>): void {
    const turn: TurnSummary = { id: event.turnId, status: event.status, startedAt: event.startedAt, completedAt: event.completedAt };
    if (event.status === "failed" && event.error) turn.error = { message: boundErrorMessage(event.error.message), kind: event.error.kind };
    this.running = undefined;
    this.lastActivity = Date.now();
    this.turns.onTurnEnded(event.turnId);
    this.send("turn/completed", { threadId: this.id, turn });
    this.options.broadcaster.broadcast("thread/turn/completed", { threadId: this.id, turn });
    if (!this.closed && this.statusValue.type !== "systemError") this.setStatus({ type: "idle" });
  }

  /** Whether the thread lost its transcript to another owner; if so it fails (and the manager closes it). */
  lostOwnership(): boolean {
    if (this.closed) return false;
    let reason: string | undefined;
    try {
      reason = this.file.probeOwnership();
    } catch (error) {
      reason = (error as Error).message;
    }
    if (reason === undefined) return false;
    this.fail(new Error(reason));
    return true;
  }

  /** Ownership or the disk failed: stop writing, say so, and let the manager close the thread. */
  private fail(error: Error): void {
    if (this.closed) return;
    const message = `the thread stopped: ${error.message}`;
    this.send("error", { message, kind: "threadFailed", threadId: this.id });
    this.setStatus({ type: "systemError", message });
    this.options.onFatal(this, error);
  }

  /** Marks the thread closed; the manager disposes the runtime and the file. */
  markClosed(): void {
    this.closed = true;
    this.turns.close();
    this.subscribers.clear();
  }
}
