import type { ImageContent } from "@mariozechner/pi-ai";
import type { ReviewComment } from "../git/diff/review-comments.js";
import type { ExtensionMessageInput } from "../extensions/types.js";
import type { SessionEvent } from "../run/events.js";
import { extensionMessage, userMessage } from "../run/messages.js";
import type { AgentSession, TurnInput } from "../run/session.js";
import { PLAIN_TURN_ERRORS, turnIdData, type TurnErrors } from "./errors.js";
import { ExtensionInbox } from "./extension-inbox.js";
import { InputQueue, type QueuedInput, type QueuedView } from "./input-queue.js";
import { newRun, WaitCounts, type Phase, type ProcessInput, type Run, type StartMeta, type StartOutcome, type Waiting, type Work } from "./run-record.js";
import { requireRoom, sizeOf, sum, type WaitingSize } from "./waiting-limits.js";

export type TurnEnd = Extract<SessionEvent, { type: "turn_end" }>;

/** What the controller reports; the server turns each into its notifications. */
export interface TurnObserver {
  /** The start entry is written; the start request is answered right after. */
  started(turn: { id: string; startedAt: number; meta: StartMeta; tracksFiles: boolean }): void;
  /** A started turn ended: reported exactly once. */
  completed(end: TurnEnd): void;
  /** The queued inputs or the accepted steers changed. */
  queueChanged(): void;
  /** A turn began or ended, or a wait opened or closed: the thread's status may have changed. */
  activityChanged(): void;
  /** A queued input could not start. */
  dropped(message: string, clientMessageId: string | undefined): void;
  /** The turn's run is over and reported: its bookkeeping (the working tree's second snapshot), before the thread is idle again. */
  settling?(turnId: string): Promise<void> | undefined;
}

export interface TurnLog {
  warn(message: string): void;
  error(message: string, error: unknown): void;
}

export interface TurnControllerOptions {
  threadId: string;
  /** Runs each turn on the engine; shares the controller's steer queue. */
  session: AgentSession;
  processInput: ProcessInput;
  errors?: TurnErrors;
  log?: TurnLog;
}

export interface QueueState {
  steering: string[];
  followUp: QueuedView[];
}

const SILENT: TurnObserver = { started: () => undefined, completed: () => undefined, queueChanged: () => undefined, activityChanged: () => undefined, dropped: () => undefined };

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
  private phase: Phase = { kind: "idle" };
  private closing: Promise<void> | undefined;
  private readonly queue = new InputQueue();
  private readonly waits: WaitCounts;
  private readonly inbox = new ExtensionInbox();
  private readonly errors: TurnErrors;
  private observer: TurnObserver = SILENT;
  private readonly stopListening: () => void;

  constructor(private readonly options: TurnControllerOptions) {
    this.errors = options.errors ?? PLAIN_TURN_ERRORS;
    this.waits = new WaitCounts(() => this.observer.activityChanged());
    const stopSession = options.session.subscribe((event) => this.onSessionEvent(event));
    const stopSteers = options.session.steers.subscribe(() => this.observer.queueChanged());
    this.stopListening = () => {
      stopSession();
      stopSteers();
    };
  }

  /** The one observer (the server's notifications); undone by the returned function. */
  observe(observer: TurnObserver): () => void {
    this.observer = observer;
    return () => {
      if (this.observer === observer) this.observer = SILENT;
    };
  }

  private get session(): AgentSession {
    return this.options.session;
  }

  /** A turn or an exclusive change holds the thread. */
  get busy(): boolean {
    return this.phase.kind !== "idle";
  }

  get isIdle(): boolean {
    return this.phase.kind === "idle";
  }

  /** What an interrupt aborts: the signal of the turn holding the thread, from its admission on. */
  get signal(): AbortSignal | undefined {
    return this.phase.kind === "turn" ? this.phase.run.turn.signal : undefined;
  }

  /** Stops the turn holding the thread, leaving the queue as it is (an extension's abort). */
  interruptRun(): void {
    if (this.phase.kind === "turn") this.phase.run.turn.interrupt();
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

  /** When the running turn started. */
  get runningStartedAt(): number | undefined {
    return this.runningRun?.turn.startedAt;
  }

  get hasQueued(): boolean {
    return this.queue.size > 0;
  }

  /** Whether the thread shows as active, and on what it waits. */
  activity(): { active: boolean; waitingOn: Waiting[] } {
    const waitingOn = this.waits.waitingOn();
    return { active: this.runningRun !== undefined || waitingOn.length > 0, waitingOn };
  }

  queueSnapshot(): QueueState {
    return { steering: this.session.steers.pending(), followUp: this.queue.followUp() };
  }

  /** turn/start: admission, input hooks, then the turn; answers once it started, or was handled or cancelled. `claimed` runs once the thread is taken. */
  async start(input: { text: string; images: ImageContent[]; comments?: ReviewComment[] } & StartMeta, claimed?: () => void): Promise<StartOutcome> {
    const run = await this.claimRun(input);
    claimed?.();
    return this.admit(run, { kind: "input", text: input.text, images: input.images, comments: input.comments ?? [], source: "user" });
  }

  /** thread/compact/start and `/compact`: a turn that only compacts the history. */
  async compact(claimed?: () => void, meta: StartMeta = {}): Promise<string> {
    const run = await this.claimRun(meta);
    claimed?.();
    const outcome = await this.admit(run, { kind: "compact" });
    if (outcome.status !== "started") throw this.errors.refused("internal", "the compaction did not start");
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
      if (this.closing) throw this.unloading();
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
        throw this.errors.refused("turnInProgress", `thread ${this.options.threadId} is running ${id ? `turn ${id}` : "a start"}`, turnIdData(id));
      }
      await this.phase.done;
    }
  }

  private unloading(): Error {
    return this.errors.refused("threadNotFound", `thread ${this.options.threadId} is unloading`);
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
    const { phase, release } = await this.claimExclusive();
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
   * the controller closes in the same step, before anything queued could
   * start: the thread is about to load again elsewhere (a handoff). Answers
   * the work's result and the inputs that were waiting, which follow the
   * thread. When the work fails the thread goes on as it was.
   */
  async exclusiveThenClose<T>(work: () => Promise<T>): Promise<{ result: T; queued: QueuedInput[] }> {
    const { phase, release } = await this.claimExclusive();
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
    this.session.steers.cancelHeld();
    this.closing = this.closeIdle();
    if (this.phase === phase) this.phase = { kind: "idle" };
    release();
    return { result, queued };
  }

  private async claimExclusive(): Promise<{ phase: Phase; release: () => void }> {
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    const phase = await this.claim(() => ({ kind: "exclusive" as const, done }));
    return { phase, release };
  }

  /** Inputs that waited on this thread before it loaded again elsewhere: they wait here now, and start when it is idle. */
  restoreQueue(inputs: readonly QueuedInput[]): void {
    if (inputs.length === 0 || this.closing) return;
    for (const input of inputs) this.queue.restore(input);
    this.observer.queueChanged();
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
      try {
        await this.session.prepare();
      } catch (error) {
        throw this.errors.startFailed(error);
      }
      let input: TurnInput = { compactOnly: true };
      if (work.kind === "input") {
        const processed = await this.options.processInput(work.text, work.images, work.source, run.turn.signal);
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
      this.session.runTurn(input, run.turn).then(
        () => this.settle(run),
        (error: unknown) => {
          if (run.turn.id === undefined) {
            // Nothing was written: what the turn carried from extensions waits for the next one.
            if (input.preamble) this.inbox.putBack(input.preamble);
            reject(this.errors.startFailed(error));
          } else {
            this.options.log?.error("a turn failed outside its run", error);
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
    this.session.steers.cancelHeld((steer) => steer.turnId === turn.id);
    this.reportEnded(run, {
      type: "turn_end",
      turnId: turn.id!,
      status: error ? "failed" : "interrupted",
      ...(error ? { error } : {}),
      startedAt: turn.startedAt!,
      completedAt: Date.now(),
    });
  }

  private reportEnded(run: Run, event: TurnEnd): void {
    run.completed = true;
    this.observer.completed(event);
    this.observer.activityChanged();
  }

  private onSessionEvent(event: SessionEvent): void {
    const run = this.phase.kind === "turn" ? this.phase.run : undefined;
    if (!run) return;
    if (event.type === "turn_start") {
      this.observer.started({ id: event.turnId, startedAt: event.startedAt, meta: run.meta, tracksFiles: run.tracksFiles });
      run.started?.(event.turnId);
      this.observer.activityChanged();
    } else if (event.type === "turn_end" && run.turn.id === event.turnId) {
      this.session.steers.cancelHeld((steer) => steer.turnId === event.turnId);
      if (!run.completed) this.reportEnded(run, event);
    }
  }

  /** turn/steer: input for the running turn named `expectedTurnId`, through the input hooks first. */
  async steer(expectedTurnId: string, text: string, images: ImageContent[]): Promise<{ status: "steered" | "handled"; turnId: string }> {
    const running = this.runningTurnId;
    if (running !== expectedTurnId) {
      throw this.errors.refused("turnMismatch", running ? `the running turn is ${running}, not ${expectedTurnId}` : "no turn is running", {
        ...(running ? { runningTurnId: running } : {}),
      });
    }
    requireRoom(this.waiting(), sizeOf(text, images), this.errors);
    const steers = this.session.steers;
    const held = steers.hold(expectedTurnId);
    const ended = () => this.errors.refused("invalidParams", `turn ${expectedTurnId} ended before the steer was accepted`, { reason: "turnEnded" });
    try {
      const processed = await this.options.processInput(text, images, "user", held.signal);
      if (held.cancelled || this.runningTurnId !== expectedTurnId) throw ended();
      if (processed.action === "handled") return { status: "handled", turnId: expectedTurnId };
      requireRoom(this.waiting(), sizeOf(processed.text, processed.images), this.errors);
      if (!this.session.deliver(userMessage(processed.text, processed.images), "steer", held)) throw ended();
      return { status: "steered", turnId: expectedTurnId };
    } finally {
      steers.release(held);
    }
  }

  /** turn/queue/add: starts at once on an idle thread, else when the thread next becomes idle. `claimed` runs once it is queued. */
  queueAdd(input: { text: string; images: ImageContent[]; comments?: ReviewComment[]; clientMessageId?: string }, claimed?: () => void): string {
    if (this.closing) throw this.unloading();
    requireRoom(this.waiting(), sizeOf(input.text, input.images), this.errors);
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

  /** What waits on the thread: queued inputs and steers not yet delivered. */
  private waiting(): WaitingSize {
    return sum([this.queue.held, this.session.steers.held()]);
  }

  /** On an idle thread: the oldest queued input starts, or the turn an extension asked for. */
  private startNext(): void {
    if (this.phase.kind !== "idle" || this.closing) return;
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

  /**
   * An extension's message, delivered as its API promises: into the running
   * turn (as a steer, or a follow-up), else before the next turn, starting
   * one when it asks to.
   */
  deliver(input: ExtensionMessageInput, options: { triggerTurn?: boolean; deliverAs?: "steer" | "followUp" }): void {
    if (this.closing) {
      this.options.log?.warn(`an extension message (${input.customType}) arrived while the thread unloads; it is dropped`);
      return;
    }
    const message = extensionMessage(input);
    if (this.session.deliver(message, options.deliverAs ?? "steer")) return;
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
      throw this.errors.refused("turnMismatch", running ? `the running turn is ${running}, not ${turnId}` : "no turn is running");
    }
    if (this.queue.clear()) this.observer.queueChanged();
    this.session.steers.cancelHeld();
    if (this.phase.kind !== "turn") return false;
    const turn = this.phase.run.turn;
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
