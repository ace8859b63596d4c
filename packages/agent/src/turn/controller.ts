import type { ImageContent } from "@mariozechner/pi-ai";
import type { AgentTool } from "@mariozechner/pi-agent-core";
import type { ReviewComment } from "@knightcode/repo/git/diff/review-comments";
import type { ExtensionMessageInput } from "../extensions/types.js";
import type { SessionEvent } from "../run/events.js";
import type { AgentSession } from "../run/session.js";
import { admit, deliverExtensionMessage, steer, type AdmissionContext } from "./admission.js";
import { PLAIN_TURN_ERRORS, turnIdData, type TurnErrors } from "./errors.js";
import { ExtensionInbox } from "./extension-inbox.js";
import { InputQueue, type QueuedInput } from "./input-queue.js";
import { SILENT_OBSERVER, type QueueState, type TurnEnd, type TurnLog, type TurnObserver } from "./observer.js";
import { unreportedEnd, WaitCounts, type TurnEngine, type Run, type StartMeta, type StartOutcome, type Waiting, type Work } from "./run-record.js";
import { requireRoom, sizeOf, sum } from "./waiting-limits.js";
import { ThreadHold } from "./thread-hold.js";

export type { QueueState, TurnEnd, TurnEngine, TurnLog, TurnObserver };

/** A turn/start's input; `tools` are offered in that turn only (a review's). */
export type TurnStart = { text: string; images: ImageContent[]; comments?: ReviewComment[]; tools?: AgentTool[] };

export interface TurnControllerOptions {
  threadId: string;
  errors?: TurnErrors;
  log?: TurnLog;
}

/**
 * The one owner of a thread's running turn. Its phase says whether the
 * thread is idle, running a turn (from admission through the input hooks,
 * the run and its settlement) or held by an exclusive change; its
 * transitions are the only way any of that changes. It keeps the input
 * queue, the steer queue (shared with the session that runs the turn), the
 * open waits on the user and what extensions said between turns. Starts,
 * steers, queued inputs, interrupts, exclusive changes and extension
 * messages all go through it; the rest of the thread asks it.
 */
export class TurnController {
  private readonly hold: ThreadHold;
  private closing: Promise<void> | undefined;
  private readonly queue = new InputQueue();
  private readonly waits: WaitCounts;
  private readonly inbox = new ExtensionInbox();
  private readonly errors: TurnErrors;
  private readonly admission: AdmissionContext;
  private observer: TurnObserver = SILENT_OBSERVER;
  /** Nothing starts by itself before someone observes: a turn nobody hears of would be lost. */
  private observed = false;
  private engine: TurnEngine | undefined;
  private stopListening: () => void = () => undefined;

  constructor(private readonly options: TurnControllerOptions) {
    this.errors = options.errors ?? PLAIN_TURN_ERRORS;
    this.waits = new WaitCounts(() => this.observer.activityChanged());
    this.hold = new ThreadHold({
      closed: () => (this.closing ? this.unloading() : undefined),
      busy: (id) => this.errors.refused("turnInProgress", `thread ${options.threadId} is running ${id ? `turn ${id}` : "a start"}`, turnIdData(id)),
    });
    this.admission = {
      engine: () => this.runEngine(),
      errors: this.errors,
      ...(options.log ? { log: options.log } : {}),
      closing: () => this.closing !== undefined,
      inbox: this.inbox,
      startNext: () => this.startNext(),
      settle: (run, thrown) => this.settle(run, thrown),
      runningTurnId: () => this.runningTurnId,
      waiting: () => sum([this.queue.held, this.session.steers.held()]),
    };
  }

  /**
   * The thread's session and input hooks, once they exist: the controller
   * is made first, so that what the runtime is built with can already ask
   * it; no turn starts before this.
   */
  bind(engine: TurnEngine): void {
    if (this.engine) throw new Error("the turn controller already runs a session");
    this.engine = engine;
    const stopSession = engine.session.subscribe((event) => this.onSessionEvent(event));
    const stopSteers = engine.session.steers.subscribe(() => this.observer.queueChanged());
    this.stopListening = () => {
      stopSession();
      stopSteers();
    };
  }

  private runEngine(): TurnEngine {
    if (!this.engine) throw new Error("the thread is still loading");
    return this.engine;
  }

  /** The one observer (the server's notifications); undone by the returned function. */
  observe(observer: TurnObserver): () => void {
    this.observer = observer;
    this.observed = true;
    this.startNext();
    return () => {
      if (this.observer === observer) this.observer = SILENT_OBSERVER;
    };
  }

  get threadId(): string {
    return this.options.threadId;
  }

  private get session(): AgentSession {
    return this.runEngine().session;
  }

  /** A turn or an exclusive change holds the thread. */
  get busy(): boolean {
    return this.hold.phase.kind !== "idle";
  }

  /** What an interrupt aborts: the signal of the turn holding the thread, from its admission on. */
  get signal(): AbortSignal | undefined {
    return this.hold.run?.turn.signal;
  }

  /** Stops the turn holding the thread, leaving the queue as it is (an extension's abort). */
  interruptRun(): void {
    this.hold.run?.turn.interrupt();
  }

  /** Waits out a turn already reported completed that only finishes its bookkeeping. */
  finishReported(): Promise<void> {
    return this.hold.finishReported();
  }

  get runningTurnId(): string | undefined {
    return this.hold.runningRun?.turn.id;
  }

  get hasQueued(): boolean {
    return this.queue.size > 0;
  }

  /** Whether the thread shows as active, and on what it waits. */
  activity(): { active: boolean; waitingOn: Waiting[] } {
    const waitingOn = this.waits.waitingOn();
    return { active: this.hold.runningRun !== undefined || waitingOn.length > 0, waitingOn };
  }

  queueSnapshot(): QueueState {
    return { steering: this.engine?.session.steers.pending() ?? [], followUp: this.queue.followUp() };
  }

  /** turn/start: admission, input hooks, then the turn; answers once it started, or was handled or cancelled. `claimed` runs once the thread is taken. */
  async start(input: TurnStart & StartMeta, claimed?: () => void): Promise<StartOutcome> {
    const run = await this.hold.claimRun(input);
    claimed?.();
    const { text, images, comments = [], tools } = input;
    return admit(this.admission, run, { kind: "input", text, images, comments, source: "user", ...(tools ? { tools } : {}) });
  }

  /** thread/compact/start and `/compact`: a turn that only compacts the history. */
  async compact(claimed?: () => void, meta: StartMeta = {}): Promise<string> {
    const run = await this.hold.claimRun(meta);
    claimed?.();
    const outcome = await admit(this.admission, run, { kind: "compact" });
    if (outcome.status !== "started") throw this.errors.refused("internal", "the compaction did not start");
    return outcome.turnId;
  }

  private unloading(): Error {
    return this.errors.refused("threadNotFound", `thread ${this.options.threadId} is unloading`);
  }

  /**
   * Runs `work` with the thread held: no turn starts until it is done (a
   * start that arrives meanwhile waits for it), and while a turn runs it is
   * refused with turnInProgress. Exclusive changes run one after another.
   */
  async exclusive<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await this.hold.exclusive(work);
    } finally {
      this.startNext();
    }
  }

  /**
   * Runs `work` holding the thread, as `exclusive` does; when it succeeds,
   * the controller closes in the same step, before anything queued could
   * start: the thread is about to load again elsewhere (a handoff). Answers
   * the work's result and the inputs that were waiting, which follow the
   * thread. When the work fails the thread goes on as it was.
   */
  async exclusiveThenClose<T>(work: () => Promise<T>): Promise<{ result: T; queued: QueuedInput[] }> {
    let queued: QueuedInput[] = [];
    try {
      const result = await this.hold.exclusive(work, () => {
        queued = this.queue.drain();
        this.session.steers.cancelHeld();
        this.closing = this.closeIdle();
      });
      return { result, queued };
    } catch (error) {
      this.startNext();
      throw error;
    }
  }

  /** Inputs that waited on this thread before it loaded again elsewhere: they wait here now, and start when it is idle. */
  restoreQueue(inputs: readonly QueuedInput[]): void {
    if (inputs.length === 0 || this.closing) return;
    for (const input of inputs) this.queue.restore(input);
    this.observer.queueChanged();
    this.startNext();
  }

  /** turn/steer: input for the running turn named `expectedTurnId`, through the input hooks first. */
  steer(expectedTurnId: string, text: string, images: ImageContent[]): Promise<{ status: "steered" | "handled"; turnId: string }> {
    return steer(this.admission, expectedTurnId, text, images);
  }

  /** Starts work on the thread, which the caller found idle in this same step. */
  private admitAndLaunch(work: Work, meta: StartMeta): Promise<StartOutcome> {
    return admit(this.admission, this.hold.take(meta), work);
  }

  /**
   * The run is over (or never launched): a turn that started and was not
   * reported ended is reported now, the thread is idle again and the next
   * queued input may start.
   */
  private settle(run: Run, thrown?: unknown): void {
    if (run.turn.id !== undefined && !run.completed) this.completeUnreported(run, thrown);
    const settling = run.turn.id !== undefined && run.tracksFiles ? this.observer.settling?.(run.turn.id) : undefined;
    if (!settling) return this.release(run);
    settling.then(
      () => this.release(run),
      (error: unknown) => {
        this.options.log?.error(`turn ${run.turn.id} could not finish its bookkeeping`, error);
        this.release(run);
      },
    );
  }

  /** The thread is idle again and the next queued input may start. */
  private release(run: Run): void {
    this.hold.free(run);
    this.startNext();
  }

  /**
   * The turn ended without the session's end event (its run threw after
   * starting, or the thread closes before it could settle): a fault fails
   * it, a stop interrupts it (interrupted outcomes take precedence), and
   * otherwise it failed with what was thrown.
   */
  private completeUnreported(run: Run, thrown: unknown): void {
    this.session.steers.cancelHeld((steer) => steer.turnId === run.turn.id);
    this.reportEnded(run, unreportedEnd(run.turn, thrown));
  }

  private reportEnded(run: Run, event: TurnEnd): void {
    run.completed = true;
    this.observer.completed(event);
    this.observer.activityChanged();
  }

  private onSessionEvent(event: SessionEvent): void {
    const run = this.hold.run;
    if (event.type === "turn_start") {
      if (!run) return;
      this.observer.started({ id: event.turnId, startedAt: event.startedAt, meta: run.meta, tracksFiles: run.tracksFiles });
      run.started?.(event.turnId);
      this.observer.activityChanged();
    } else if (event.type === "turn_end") {
      if (run?.turn.id !== event.turnId) return;
      this.session.steers.cancelHeld((steer) => steer.turnId === event.turnId);
      if (!run.completed) this.reportEnded(run, event);
    } else {
      this.observer.sessionEvent?.(event);
    }
  }

  /** turn/queue/add: starts at once on an idle thread, else when the thread next becomes idle. `claimed` runs once it is queued. */
  queueAdd(input: { text: string; images: ImageContent[]; comments?: ReviewComment[]; clientMessageId?: string }, claimed?: () => void): string {
    if (this.closing) throw this.unloading();
    requireRoom(this.admission.waiting(), sizeOf(input.text, input.images), this.errors);
    const id = this.queue.add(input);
    claimed?.();
    this.observer.queueChanged();
    this.startNext();
    return id;
  }

  queueRemove(queueId: string): boolean {
    if (!this.queue.remove(queueId)) return false;
    this.observer.queueChanged();
    return true;
  }

  /** On an idle thread: the oldest queued input starts, or the turn an extension asked for. */
  private startNext(): void {
    if (this.hold.phase.kind !== "idle" || this.closing || !this.observed) return;
    const next = this.queue.shift();
    if (next) {
      this.observer.queueChanged();
      const meta = next.clientMessageId ? { clientMessageId: next.clientMessageId } : {};
      this.admitAndLaunch({ kind: "input", text: next.text, images: next.images, comments: next.comments ?? [], source: "queue" }, meta).then(
        (outcome) => {
          if (outcome.status !== "started") this.startNext();
        },
        (error: unknown) => {
          this.observer.dropped(`a queued input could not start: ${(error as Error).message}`, next.clientMessageId);
          this.startNext();
        },
      );
      return;
    }
    if (this.inbox.wantsTurn) {
      this.admitAndLaunch({ kind: "extension" }, {}).catch((error: unknown) => {
        this.options.log?.warn(`the turn an extension asked for could not start: ${(error as Error).message}`);
      });
    }
  }

  /** An extension's message: into the running turn, else before the next one (see deliverExtensionMessage). */
  deliver(input: ExtensionMessageInput, options: { triggerTurn?: boolean; deliverAs?: "steer" | "followUp" }): void {
    deliverExtensionMessage(this.admission, input, options);
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
      throw this.errors.refused("turnMismatch", running ? `the running turn is ${running}, not ${turnId}` : "no turn is running");
    }
    if (this.queue.clear()) this.observer.queueChanged();
    this.session.steers.cancelHeld();
    const turn = this.hold.run?.turn;
    if (!turn) return false;
    turn.interrupt();
    return turn.phase !== "ended";
  }

  /** The user is asked something: the thread reports waitingOn until the returned release runs (once). */
  waitOn(kind: Waiting): () => void {
    return this.waits.open(kind);
  }

  /**
   * The thread cannot go on (its transcript can no longer be written): the
   * running turn, wherever it is, ends failed with `error`.
   */
  fail(error: { message: string; kind: "other" }): void {
    this.hold.run?.turn.fail(error);
  }

  /**
   * The thread closes before its turn could settle (its deadline passed):
   * the turn is reported ended now, as it stands, so no client waits on it.
   */
  reportUnsettled(): void {
    const run = this.hold.run;
    if (run && run.turn.id !== undefined && !run.completed) this.completeUnreported(run, undefined);
  }

  /** Resolves once no turn or exclusive change holds the thread. */
  settled(): Promise<void> {
    return this.hold.settled();
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
        this.stopListening();
      })();
    }
    return this.closing;
  }

  /** Closing a thread that holds no turn (exclusiveThenClose): nothing to interrupt or wait for. */
  private async closeIdle(): Promise<void> {
    this.dropInbox();
    this.stopListening();
  }

  private dropInbox(): void {
    const dropped = this.inbox.clear();
    if (dropped > 0) this.options.log?.warn(`${dropped} extension message(s) never reached a turn before the thread unloaded`);
  }
}
