import type { ImageContent } from "@mariozechner/pi-ai";
import {
  Turn,
  extensionMessage,
  type ExtensionMessageInput,
  type ReviewComment,
  type SessionEvent,
  type ThreadRuntime,
  type TurnInput,
  type TurnOwnerView,
} from "@knightcode/agent";
import type { QueueSnapshot, Turn as WireTurn } from "@knightcode/app-server-protocol";
import type { Logger } from "../log.js";
import { turnForWire, TurnWireCache } from "../payloads/refs.js";
import type { PayloadSink } from "../payloads/store.js";
import type { Connection } from "../rpc/connection.js";
import { rpcError, turnIdData } from "../rpc/errors.js";
import { ExtensionInbox } from "./extension-inbox.js";
import { InputQueue, type QueuedInput } from "./input-queue.js";
import { LiveTurnItems, type ItemSink } from "./live-items.js";
import { SteerWaiters } from "./steer-waiters.js";
import { turnSummary } from "./summary.js";
import { requireRoom, sizeOf, sum, type WaitingSize } from "./waiting-limits.js";

/** What the owner needs from its thread. */
export interface TurnOwnerHost {
  readonly threadId: string;
  readonly runtime: ThreadRuntime;
  readonly log: Logger;
  subscribe(connection: Connection): void;
  /** Where a running turn's notifications go: the thread's subscribers and, for outcomes, every connection. */
  readonly out: TurnNotifications;
  /** A turn began or ended, or a wait opened or closed: the thread's status may have changed. */
  activityChanged(): void;
  /** Maps model problems (no model, no credentials) to protocol errors. */
  modelError(error: unknown): Error;
  /** The item notifications of the turn `turnId`. */
  itemSink(turnId: string): ItemSink;
  /** Whether the user declined a call at the approval gate. */
  isDeclined(callId: string): boolean;
  /** A turn that may change files started (not a compaction): its working tree's first snapshot. */
  turnBegan?(turnId: string): void;
  /** That turn's run is over and reported: the second snapshot, before the thread is idle again. */
  turnSettling?(turnId: string): Promise<void>;
}

export interface TurnNotifications {
  started(turn: WireTurn, requestId: string | undefined): void;
  completed(turn: WireTurn): void;
  queueChanged(queue: QueueSnapshot): void;
  /** A queued input could not start. */
  dropped(message: string, clientMessageId: string | undefined): void;
}

/** The identity a turn's notifications carry from its start. */
export interface StartMeta {
  requestId?: string;
  clientMessageId?: string;
}

export type StartOutcome =
  | { status: "started"; turnId: string }
  /** `threadId`: a command replaced the thread with this one. */
  | { status: "handled"; threadId?: string }
  | { status: "cancelled" };

export type Waiting = "approval" | "dialog";

type Work =
  | { kind: "input"; text: string; images: ImageContent[]; comments: ReviewComment[]; source: "user" | "queue" }
  | { kind: "compact" }
  | { kind: "extension" };

/** A turn from admission to its settled run: the owner's one record of it. */
interface Run {
  readonly turn: Turn;
  readonly meta: StartMeta;
  /** The items as the wire shows them, from the start entry on. */
  items: LiveTurnItems | undefined;
  /** The items' wire forms, kept as they complete and between resumes of this turn. */
  wire?: TurnWireCache;
  /** Resolves the start request once the start entry is written. */
  started?: (turnId: string) => void;
  /** turn/completed went out: a started turn gets exactly one. */
  completed: boolean;
  /** Not a compaction: the working tree is snapshotted around it. */
  tracksFiles: boolean;
  readonly done: Promise<void>;
  finish(): void;
}

type Phase =
  | { kind: "idle" }
  | { kind: "turn"; run: Run }
  /** A change that must not land inside a turn (settings, later reverts and handoffs): starts wait for it. */
  | { kind: "exclusive"; done: Promise<void> };

const WAITING_ORDER: readonly Waiting[] = ["approval", "dialog"];

/**
 * The one owner of a thread's running turn. Its phase says whether the
 * thread is idle, running a turn (from admission through the input hooks,
 * the run and its settlement) or held by an exclusive change; its
 * transitions are the only way any of that changes. Starts, steers, queued
 * inputs, interrupts, settings changes, waits on the user and extension
 * messages all go through it, and the rest of the thread asks it rather
 * than keeping a copy.
 */
export class TurnOwner {
  private phase: Phase = { kind: "idle" };
  private closing: Promise<void> | undefined;
  private readonly queue = new InputQueue();
  private readonly steers = new SteerWaiters();
  private readonly waits = new Map<Waiting, number>();
  private readonly inbox = new ExtensionInbox();
  private readonly unsubscribe: () => void;
  /** The queue or the steers changed since the last turn/queue/updated went out. */
  private queueDirty = false;

  constructor(private readonly host: TurnOwnerHost) {
    this.unsubscribe = host.runtime.session.subscribe((event) => this.onSessionEvent(event));
  }

  /** A turn or an exclusive change holds the thread. */
  get busy(): boolean {
    return this.phase.kind !== "idle";
  }

  /**
   * Waits out a turn that was already reported completed and only finishes
   * its bookkeeping (the working tree's second snapshot): to a client it
   * has ended, so what it asks next must not find it running.
   */
  async finishReported(): Promise<void> {
    while (this.phase.kind === "turn" && this.phase.run.completed) await this.phase.run.done;
  }

  /** The turn between its start and end entries, if any. */
  private get runningRun(): Run | undefined {
    if (this.phase.kind !== "turn") return undefined;
    const phase = this.phase.run.turn.phase;
    return phase === "running" || phase === "settling" ? this.phase.run : undefined;
  }

  get runningTurnId(): string | undefined {
    return this.runningRun?.turn.id;
  }

  get hasQueued(): boolean {
    return this.queue.size > 0;
  }

  /** Whether the thread shows as active, and on what it waits. */
  activity(): { active: boolean; waitingOn: Waiting[] } {
    const waitingOn = WAITING_ORDER.filter((kind) => (this.waits.get(kind) ?? 0) > 0);
    return { active: this.runningRun !== undefined || waitingOn.length > 0, waitingOn };
  }

  /** The running turn as it stands, for thread/resume's `runningTurn`. */
  runningTurn(): WireTurn | undefined {
    const run = this.runningRun;
    if (!run?.items) return undefined;
    return { id: run.turn.id!, status: "inProgress", startedAt: run.turn.startedAt!, items: run.items.snapshot() };
  }

  /** The running turn as thread/resume sends it: what earlier resumes measured and stored is reused. */
  runningTurnForWire(store: PayloadSink): WireTurn | undefined {
    const turn = this.runningTurn();
    if (!turn || !this.runningRun) return undefined;
    this.runningRun.wire ??= new TurnWireCache();
    return turnForWire(turn, store, this.runningRun.wire);
  }

  queueSnapshot(): QueueSnapshot {
    return { steering: this.host.runtime.session.pendingSteers(), followUp: this.queue.followUp() };
  }

  /** What the thread's extensions see of the owner. */
  readonly view: TurnOwnerView = {
    isIdle: () => this.phase.kind === "idle",
    signal: () => (this.phase.kind === "turn" ? this.phase.run.turn.signal : undefined),
    interrupt: () => {
      if (this.phase.kind === "turn") this.phase.run.turn.interrupt();
    },
  };

  /** turn/start: admission, input hooks, then the turn; answers once it started, or was handled or cancelled. */
  async start(input: { text: string; images: ImageContent[]; comments?: ReviewComment[] } & StartMeta, connection: Connection): Promise<StartOutcome> {
    const run = await this.claimRun(input);
    this.host.subscribe(connection);
    return this.admit(run, { kind: "input", text: input.text, images: input.images, comments: input.comments ?? [], source: "user" });
  }

  /** thread/compact/start and `/compact`: a turn that only compacts the history. */
  async compact(connection: Connection, meta: StartMeta = {}): Promise<string> {
    const run = await this.claimRun(meta);
    this.host.subscribe(connection);
    const outcome = await this.admit(run, { kind: "compact" });
    if (outcome.status !== "started") throw rpcError("internal", "the compaction did not start");
    return outcome.turnId;
  }

  /**
   * Takes the idle thread for `phase`, waiting out an exclusive change
   * first; a turn, or a thread closing, refuses. The check that finds the
   * thread idle and the taking are one synchronous step, so two callers
   * woken together cannot both take it.
   */
  private async claim<P extends Phase>(phase: () => P): Promise<P> {
    for (;;) {
      if (this.closing) throw rpcError("threadNotFound", `thread ${this.host.threadId} is unloading`);
      if (this.phase.kind === "idle") {
        this.phase = phase();
        return this.phase as P;
      }
      if (this.phase.kind === "turn" && this.phase.run.completed) {
        await this.finishReported();
        continue;
      }
      if (this.phase.kind === "turn") {
        const id = this.phase.run.turn.id;
        throw rpcError("turnInProgress", `thread ${this.host.threadId} is running ${id ? `turn ${id}` : "a start"}`, turnIdData(id));
      }
      await this.phase.done;
    }
  }

  private async claimRun(meta: StartMeta): Promise<Run> {
    return (await this.claim(() => ({ kind: "turn" as const, run: newRun(meta) }))).run;
  }

  /**
   * Runs `work` with the thread held: no turn starts until it is done (a
   * start that arrives meanwhile waits for it), and while a turn runs it is
   * refused with turnInProgress. Exclusive changes run one after another.
   */
  async exclusive<T>(work: () => Promise<T>): Promise<T> {
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    const phase = await this.claim(() => ({ kind: "exclusive" as const, done }));
    try {
      return await work();
    } finally {
      if (this.phase === phase) this.phase = { kind: "idle" };
      release();
      this.startNext();
    }
  }

  /**
   * Runs `work` holding the thread, as `exclusive` does; when it succeeds,
   * the owner closes in the same step, before anything queued could start:
   * the thread is about to load again elsewhere (a handoff). Answers the
   * work's result and the inputs that were waiting, which follow the
   * thread. When the work fails the thread goes on as it was.
   */
  async exclusiveThenClose<T>(work: () => Promise<T>): Promise<{ result: T; queued: QueuedInput[] }> {
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    const phase = await this.claim(() => ({ kind: "exclusive" as const, done }));
    let result: T;
    try {
      result = await work();
    } catch (error) {
      if (this.phase === phase) this.phase = { kind: "idle" };
      release();
      this.startNext();
      throw error;
    }
    const queued = this.queue.drain();
    this.steers.cancel();
    this.closing = this.closeIdle();
    if (this.phase === phase) this.phase = { kind: "idle" };
    release();
    return { result, queued };
  }

  /** Inputs that waited on this thread before it loaded again elsewhere: they wait here now, and start when it is idle. */
  restoreQueue(inputs: readonly QueuedInput[]): void {
    if (inputs.length === 0 || this.closing) return;
    for (const input of inputs) this.queue.restore(input);
    this.queueChanged();
    this.startNext();
  }

  /** Starts work on the thread, which the caller found idle in this same step. */
  private admitAndLaunch(work: Work, meta: StartMeta): Promise<StartOutcome> {
    const run = newRun(meta);
    this.phase = { kind: "turn", run };
    return this.admit(run, work);
  }

  private async admit(run: Run, work: Work): Promise<StartOutcome> {
    let launched = false;
    try {
      const { runtime } = this.host;
      try {
        await runtime.session.prepare();
      } catch (error) {
        throw this.host.modelError(error);
      }
      let input: TurnInput = { compactOnly: true };
      if (work.kind === "input") {
        const processed = await runtime.processInput(work.text, work.images, work.source, run.turn.signal);
        // A replaced thread is the command's answer, whatever happened to this one since.
        if (processed.action === "handled" && processed.threadId !== undefined) return { status: "handled", threadId: processed.threadId };
        if (run.turn.interrupted) return { status: "cancelled" };
        if (processed.action === "handled") return { status: "handled" };
        input = { text: processed.text, images: processed.images, ...(work.comments.length > 0 ? { comments: work.comments } : {}) };
      } else if (work.kind === "extension") {
        input = {};
      }
      if (run.turn.interrupted || this.closing) return { status: "cancelled" };
      if (work.kind !== "compact") input = this.withPreamble(input);
      launched = true;
      return { status: "started", turnId: await this.launch(run, input) };
    } finally {
      if (!launched) this.settle(run);
    }
  }

  /** Runs the turn; resolves with its id once its start entry is written. From here the first acceptance wins. */
  private launch(run: Run, input: TurnInput): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      run.started = resolve;
      run.tracksFiles = input.compactOnly !== true;
      this.host.runtime.session.runTurn(input, run.turn).then(
        () => this.settle(run),
        (error: unknown) => {
          if (run.turn.id === undefined) {
            // Nothing was written: what the turn carried from extensions waits for the next one.
            if (input.preamble) this.inbox.putBack(input.preamble);
            reject(this.host.modelError(error));
          } else {
            this.host.log.error("a turn failed outside its run", error);
          }
          this.settle(run, error);
        },
      );
    });
  }

  private withPreamble(input: TurnInput): TurnInput {
    const preamble = this.inbox.take();
    return preamble.length === 0 ? input : { ...input, preamble };
  }

  /**
   * The run is over (or never launched): a turn that started and was not
   * reported ended is reported now, the thread is idle again and the next
   * queued input may start.
   */
  private settle(run: Run, thrown?: unknown): void {
    if (run.turn.id !== undefined && !run.completed) this.completeUnreported(run, thrown);
    const settling = run.turn.id !== undefined && run.tracksFiles ? this.host.turnSettling?.(run.turn.id) : undefined;
    if (!settling) return this.release(run);
    settling.then(
      () => this.release(run),
      (error: unknown) => {
        this.host.log.error(`turn ${run.turn.id} could not finish its bookkeeping`, error);
        this.release(run);
      },
    );
  }

  /** The thread is idle again and the next queued input may start. */
  private release(run: Run): void {
    if (this.phase.kind === "turn" && this.phase.run === run) this.phase = { kind: "idle" };
    run.finish();
    this.startNext();
  }

  /**
   * The turn ended without the session's end event (its run threw after
   * starting, or the thread closes before it could settle): a fault fails
   * it, a stop interrupts it (interrupted outcomes take precedence), and
   * otherwise it failed with what was thrown.
   */
  private completeUnreported(run: Run, thrown: unknown): void {
    const { turn } = run;
    const thrownMessage = thrown instanceof Error ? thrown.message : thrown === undefined ? "the turn ended without finishing" : String(thrown);
    const error = turn.fault ?? (turn.interrupted ? undefined : { message: thrownMessage, kind: "other" as const });
    this.steers.cancel((waiter) => waiter.turnId === turn.id);
    this.reportEnded(run, {
      type: "turn_end",
      turnId: turn.id!,
      status: error ? "failed" : "interrupted",
      ...(error ? { error } : {}),
      startedAt: turn.startedAt!,
      completedAt: Date.now(),
    });
  }

  private reportEnded(run: Run, event: Extract<SessionEvent, { type: "turn_end" }>): void {
    run.completed = true;
    this.host.out.completed(turnSummary(event));
    this.host.activityChanged();
  }

  private onSessionEvent(event: SessionEvent): void {
    const run = this.phase.kind === "turn" ? this.phase.run : undefined;
    switch (event.type) {
      case "turn_start":
        if (run) this.onTurnStarted(run, event.turnId, event.startedAt);
        return;
      case "turn_end":
        if (run?.turn.id === event.turnId) this.onTurnEnded(run, event);
        return;
      case "steering_changed":
        this.queueChanged();
        return;
      default:
        run?.items?.handle(event);
    }
  }

  private onTurnStarted(run: Run, turnId: string, startedAt: number): void {
    const wire = (run.wire = new TurnWireCache());
    const sink = this.host.itemSink(turnId);
    const remembering: ItemSink = {
      started: (item) => sink.started(item),
      completed: (item) => {
        sink.completed(item);
        wire.remember(item);
      },
      removed: (itemId) => sink.removed(itemId),
      agentDelta: (itemId, delta) => sink.agentDelta(itemId, delta),
      reasoningDelta: (itemId, delta) => sink.reasoningDelta(itemId, delta),
    };
    run.items = new LiveTurnItems(turnId, remembering, run.meta.clientMessageId, (callId) => this.host.isDeclined(callId));
    if (run.tracksFiles) this.host.turnBegan?.(turnId);
    this.host.out.started({ id: turnId, status: "inProgress", startedAt }, run.meta.requestId);
    run.started?.(turnId);
    this.host.activityChanged();
  }

  private onTurnEnded(run: Run, event: Extract<SessionEvent, { type: "turn_end" }>): void {
    this.steers.cancel((waiter) => waiter.turnId === event.turnId);
    if (run.completed) return;
    this.reportEnded(run, event);
  }

  /** turn/steer: input for the running turn named `expectedTurnId`, through the input hooks first. */
  async steer(expectedTurnId: string, text: string, images: ImageContent[]): Promise<{ status: "steered" | "handled"; turnId: string }> {
    const running = this.runningTurnId;
    if (running !== expectedTurnId) {
      throw rpcError("turnMismatch", running ? `the running turn is ${running}, not ${expectedTurnId}` : "no turn is running", {
        ...(running ? { runningTurnId: running } : {}),
      });
    }
    requireRoom(this.waiting(), sizeOf(text, images));
    const waiter = this.steers.open(expectedTurnId);
    const ended = () => rpcError("invalidParams", `turn ${expectedTurnId} ended before the steer was accepted`, { reason: "turnEnded" });
    try {
      const processed = await this.host.runtime.processInput(text, images, "user", waiter.signal);
      if (waiter.cancelled || this.runningTurnId !== expectedTurnId) throw ended();
      if (processed.action === "handled") return { status: "handled", turnId: expectedTurnId };
      requireRoom(this.waiting(), sizeOf(processed.text, processed.images));
      if (!this.host.runtime.session.steer(processed.text, processed.images)) throw ended();
      return { status: "steered", turnId: expectedTurnId };
    } finally {
      this.steers.close(waiter);
    }
  }

  /** turn/queue/add: starts at once on an idle thread, else when the thread next becomes idle. */
  queueAdd(input: { text: string; images: ImageContent[]; comments?: ReviewComment[]; clientMessageId?: string }, connection: Connection): string {
    if (this.closing) throw rpcError("threadNotFound", `thread ${this.host.threadId} is unloading`);
    requireRoom(this.waiting(), sizeOf(input.text, input.images));
    const id = this.queue.add(input);
    this.host.subscribe(connection);
    this.queueChanged();
    this.startNext();
    return id;
  }

  queueRemove(queueId: string): boolean {
    if (!this.queue.remove(queueId)) return false;
    this.queueChanged();
    return true;
  }

  /** What waits on the thread: queued inputs and steers not yet delivered. */
  private waiting(): WaitingSize {
    const session = this.host.runtime.session;
    const steers = session.pendingSteers().map((text) => sizeOf(text, []));
    return sum([this.queue.held, ...steers, { inputs: 0, textBytes: 0, imageBytes: session.pendingSteerImageBytes() }]);
  }

  /**
   * The queue changed: one turn/queue/updated goes out at the end of this
   * turn of the event loop, with the queue as it then stands, however many
   * changes came before it. Each update lists the whole queue, so one per
   * change would let a burst of adds cost every subscriber the square of
   * the queue's size.
   */
  private queueChanged(): void {
    if (this.queueDirty) return;
    this.queueDirty = true;
    setImmediate(() => this.flushQueueUpdate());
  }

  /**
   * Sends the pending queue update now, if there is one. The thread calls it
   * before anything else it sends, so an update is never overtaken by what
   * follows from it: the turn/started of an input it took off the queue,
   * the turn/completed of an interrupt that dropped it.
   */
  flushQueueUpdate(): void {
    if (!this.queueDirty) return;
    this.queueDirty = false;
    this.host.out.queueChanged(this.queueSnapshot());
  }

  /** On an idle thread: the oldest queued input starts, or the turn an extension asked for. */
  private startNext(): void {
    if (this.phase.kind !== "idle" || this.closing) return;
    const next = this.queue.shift();
    if (next) {
      this.queueChanged();
      const meta = next.clientMessageId ? { clientMessageId: next.clientMessageId } : {};
      this.admitAndLaunch({ kind: "input", text: next.text, images: next.images, comments: next.comments ?? [], source: "queue" }, meta).then(
        (outcome) => {
          if (outcome.status !== "started") this.startNext();
        },
        (error: unknown) => {
          this.host.out.dropped(`a queued input could not start: ${(error as Error).message}`, next.clientMessageId);
          this.startNext();
        },
      );
      return;
    }
    if (this.inbox.wantsTurn) {
      this.admitAndLaunch({ kind: "extension" }, {}).catch((error: unknown) => {
        this.host.log.warn(`the turn an extension asked for could not start: ${(error as Error).message}`);
      });
    }
  }

  /**
   * An extension's message, delivered as its API promises: into the running
   * turn (as a steer, or a follow-up), else before the next turn, starting
   * one when it asks to.
   */
  deliver(input: ExtensionMessageInput, options: { triggerTurn?: boolean; deliverAs?: "steer" | "followUp" }): void {
    if (this.closing) {
      this.host.log.warn(`an extension message (${input.customType}) arrived while the thread unloads; it is dropped`);
      return;
    }
    const message = extensionMessage(input);
    if (this.host.runtime.session.deliver(message, options.deliverAs ?? "steer")) return;
    this.inbox.push(message, options.triggerTurn === true);
    if (options.triggerTurn) this.startNext();
  }

  /**
   * turn/interrupt: answers at once. Drops the queue, cancels steers in
   * interception, cancels a start still in its input hooks (it answers
   * cancelled) and stops the running turn (a turn only starting stops as
   * soon as it has).
   */
  interrupt(turnId?: string): boolean {
    const running = this.runningTurnId;
    if (turnId !== undefined && turnId !== running) {
      throw rpcError("turnMismatch", running ? `the running turn is ${running}, not ${turnId}` : "no turn is running");
    }
    if (this.queue.clear()) this.queueChanged();
    this.steers.cancel();
    if (this.phase.kind !== "turn") return false;
    const turn = this.phase.run.turn;
    turn.interrupt();
    return turn.phase !== "ended";
  }

  /** The user is asked something: the thread reports waitingOn until the returned release runs (once). */
  waitOn(kind: Waiting): () => void {
    this.waits.set(kind, (this.waits.get(kind) ?? 0) + 1);
    if (this.waits.get(kind) === 1) this.host.activityChanged();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.waits.get(kind) ?? 1) - 1;
      if (left > 0) this.waits.set(kind, left);
      else this.waits.delete(kind);
      if (left === 0) this.host.activityChanged();
    };
  }

  /**
   * The thread cannot go on (its transcript can no longer be written): the
   * running turn, wherever it is, ends failed with `error`.
   */
  fail(error: { message: string; kind: "other" }): void {
    if (this.phase.kind === "turn") this.phase.run.turn.fail(error);
  }

  /**
   * The thread closes before its turn could settle (its deadline passed):
   * the turn is reported ended now, as it stands, so no client waits on it.
   */
  reportUnsettled(): void {
    if (this.phase.kind !== "turn") return;
    const run = this.phase.run;
    if (run.turn.id !== undefined && !run.completed) this.completeUnreported(run, undefined);
  }

  /** Resolves once no turn or exclusive change holds the thread. */
  async settled(): Promise<void> {
    while (this.phase.kind !== "idle") await (this.phase.kind === "turn" ? this.phase.run.done : this.phase.done);
  }

  /**
   * Unloading: nothing new starts, queued inputs and extension messages are
   * dropped, the running turn is interrupted as turn/interrupt does. Resolves
   * once its entries are written and its run settled.
   */
  close(): Promise<void> {
    if (!this.closing) {
      this.dropInbox();
      this.closing = (async () => {
        this.interrupt();
        await this.settled();
        this.unsubscribe();
      })();
    }
    return this.closing;
  }

  /** Closing a thread that holds no turn (exclusiveThenClose): nothing to interrupt or wait for. */
  private async closeIdle(): Promise<void> {
    this.dropInbox();
    this.unsubscribe();
  }

  private dropInbox(): void {
    const dropped = this.inbox.clear();
    if (dropped > 0) this.host.log.warn(`${dropped} extension message(s) never reached a turn before the thread unloaded`);
  }
}

function newRun(meta: StartMeta): Run {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return { turn: new Turn(), meta, items: undefined, completed: false, tracksFiles: false, done, finish: () => finish() };
}
