import type { ImageContent } from "@mariozechner/pi-ai";
import type { ThreadRuntime, TurnInput } from "@knightcode/agent";
import type { Logger } from "../log.js";
import type { Connection } from "../rpc/connection.js";
import { rpcError } from "../rpc/errors.js";

/** What the turn controller needs from its thread. */
export interface TurnHost {
  readonly id: string;
  readonly runtime: ThreadRuntime;
  readonly log: Logger;
  subscribe(connection: Connection): void;
  /** The steering or queued inputs changed: tell the subscribers. */
  queueChanged(): void;
  /** A queued input could not start: tell the subscribers. */
  dropped(message: string, clientMessageId?: string): void;
  /** Maps model problems (no model, no credentials) to protocol errors. */
  modelError(error: unknown): Error;
}

export interface QueuedInput {
  id: string;
  text: string;
  images: ImageContent[];
  clientMessageId?: string;
}

/** The identity a turn's notifications carry from its start. */
export interface StartMeta {
  requestId?: string;
  clientMessageId?: string;
}

interface Admission {
  cancelled: boolean;
  controller: AbortController;
}

interface Launch extends StartMeta {
  interruptRequested: boolean;
  started(turnId: string): void;
}

interface SteerWaiter {
  turnId: string;
  controller: AbortController;
  cancelled: boolean;
}

type Outcome = { status: "started"; turnId: string } | { status: "handled" | "cancelled" };

/**
 * Decides what happens to a thread's input while turns run: one admission
 * at a time (a start holds it through its input hooks), steers that join
 * only the turn they name, queued inputs that each start a turn of their own
 * once the thread is idle, and interrupts that answer at once.
 */
export class TurnControl {
  private admission: Admission | undefined;
  private launching: Launch | undefined;
  private running: string | undefined;
  private settling: Promise<void> | undefined;
  private readonly queue: QueuedInput[] = [];
  private readonly steerWaiters = new Set<SteerWaiter>();
  private queueSeq = 0;
  private closed = false;

  constructor(private readonly host: TurnHost) {}

  /** A start, a turn or its settlement holds the thread. */
  get busy(): boolean {
    return this.admission !== undefined || this.launching !== undefined || this.settling !== undefined;
  }

  get runningTurnId(): string | undefined {
    return this.running;
  }

  get hasQueued(): boolean {
    return this.queue.length > 0;
  }

  queueSnapshot(): { id: string; text: string; attachments?: number }[] {
    return this.queue.map((q) => ({ id: q.id, text: q.text, ...(q.images.length > 0 ? { attachments: q.images.length } : {}) }));
  }

  /** turn/start: admission, input hooks, then the turn; the answer comes once it started (or was handled or cancelled). */
  async start(input: { text: string; images: ImageContent[] } & StartMeta, connection: Connection): Promise<Outcome> {
    if (this.busy) throw rpcError("turnInProgress", `thread ${this.host.id} is running ${this.running ? `turn ${this.running}` : "a start"}`);
    this.host.subscribe(connection);
    return this.admitAndLaunch({ kind: "input", text: input.text, images: input.images, source: "user" }, input);
  }

  /** thread/compact/start: a turn that only compacts the history. */
  async compact(connection: Connection): Promise<string> {
    if (this.busy) throw rpcError("turnInProgress", `thread ${this.host.id} is busy`);
    this.host.subscribe(connection);
    const outcome = await this.admitAndLaunch({ kind: "compact" }, {});
    if (outcome.status !== "started") throw rpcError("internal", "the compaction did not start");
    return outcome.turnId;
  }

  private async admitAndLaunch(
    work: { kind: "input"; text: string; images: ImageContent[]; source: "user" | "queue" } | { kind: "compact" },
    meta: StartMeta,
  ): Promise<Outcome> {
    const admission: Admission = { cancelled: false, controller: new AbortController() };
    this.admission = admission;
    try {
      const session = this.host.runtime.session;
      try {
        await session.prepare();
      } catch (error) {
        throw this.host.modelError(error);
      }
      let turnInput: TurnInput = { compactOnly: true };
      if (work.kind === "input") {
        const processed = await this.host.runtime.processInput(work.text, work.images, work.source, admission.controller.signal);
        if (admission.cancelled) return { status: "cancelled" };
        if (processed.action === "handled") return { status: "handled" };
        turnInput = { text: processed.text, images: processed.images };
      }
      if (admission.cancelled || this.closed) return { status: "cancelled" };
      const turnId = await this.launch(turnInput, meta);
      return { status: "started", turnId };
    } finally {
      if (this.admission === admission) this.admission = undefined;
    }
  }

  /** Runs the turn; resolves with its id once its start entry is written. From here the first acceptance wins. */
  private launch(input: TurnInput, meta: StartMeta): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      const launch: Launch = { ...meta, interruptRequested: false, started: resolve };
      this.launching = launch;
      const run = this.host.runtime.session.runTurn(input);
      this.settling = run.then(
        () => undefined,
        () => undefined,
      );
      run.catch((error: unknown) => {
        if (this.launching === launch) {
          this.launching = undefined;
          reject(this.host.modelError(error));
        } else {
          this.host.log.error("a turn failed outside its run", error);
        }
      });
      void this.settling.then(() => this.afterSettle());
    });
  }

  /** The session wrote the turn's start entry: the thread maps it to turn/started with what the start carried. */
  onTurnStarted(turnId: string): StartMeta {
    const launch = this.launching;
    this.launching = undefined;
    this.running = turnId;
    if (launch?.interruptRequested) this.host.runtime.session.abort();
    launch?.started(turnId);
    return { ...(launch?.requestId ? { requestId: launch.requestId } : {}), ...(launch?.clientMessageId ? { clientMessageId: launch.clientMessageId } : {}) };
  }

  /** The turn's end entry is written; steers still in interception can no longer join it. */
  onTurnEnded(turnId: string): void {
    if (this.running === turnId) this.running = undefined;
    this.cancelSteers((waiter) => waiter.turnId === turnId);
  }

  private afterSettle(): void {
    this.settling = undefined;
    this.running = undefined;
    this.startNextQueued();
  }

  /** turn/steer: input for the running turn named `expectedTurnId`, through the input hooks first. */
  async steer(expectedTurnId: string, text: string, images: ImageContent[]): Promise<{ status: "steered" | "handled"; turnId: string }> {
    if (this.running !== expectedTurnId) {
      throw rpcError("turnMismatch", this.running ? `the running turn is ${this.running}, not ${expectedTurnId}` : "no turn is running", {
        ...(this.running ? { runningTurnId: this.running } : {}),
      });
    }
    const waiter: SteerWaiter = { turnId: expectedTurnId, controller: new AbortController(), cancelled: false };
    this.steerWaiters.add(waiter);
    const ended = () => rpcError("invalidParams", `turn ${expectedTurnId} ended before the steer was accepted`, { reason: "turnEnded" });
    try {
      const processed = await this.host.runtime.processInput(text, images, "user", waiter.controller.signal);
      if (waiter.cancelled || this.running !== expectedTurnId) throw ended();
      if (processed.action === "handled") return { status: "handled", turnId: expectedTurnId };
      if (!this.host.runtime.session.steer(processed.text, processed.images)) throw ended();
      return { status: "steered", turnId: expectedTurnId };
    } finally {
      this.steerWaiters.delete(waiter);
    }
  }

  private cancelSteers(which: (waiter: SteerWaiter) => boolean): void {
    for (const waiter of this.steerWaiters) {
      if (!which(waiter)) continue;
      waiter.cancelled = true;
      waiter.controller.abort();
    }
  }

  /** turn/queue/add: starts at once on an idle thread, else when the thread next becomes idle. */
  queueAdd(input: { text: string; images: ImageContent[]; clientMessageId?: string }, connection: Connection): string {
    const id = `q${++this.queueSeq}`;
    this.queue.push({ id, text: input.text, images: input.images, ...(input.clientMessageId ? { clientMessageId: input.clientMessageId } : {}) });
    this.host.subscribe(connection);
    this.host.queueChanged();
    this.startNextQueued();
    return id;
  }

  queueRemove(queueId: string): boolean {
    const at = this.queue.findIndex((q) => q.id === queueId);
    if (at === -1) return false;
    this.queue.splice(at, 1);
    this.host.queueChanged();
    return true;
  }

  private startNextQueued(): void {
    if (this.busy || this.closed) return;
    const next = this.queue.shift();
    if (!next) return;
    this.host.queueChanged();
    const meta = next.clientMessageId ? { clientMessageId: next.clientMessageId } : {};
    this.admitAndLaunch({ kind: "input", text: next.text, images: next.images, source: "queue" }, meta)
      .then((outcome) => {
        if (outcome.status !== "started") this.startNextQueued();
      })
      .catch((error: unknown) => {
        this.host.dropped(`a queued input could not start: ${(error as Error).message}`, next.clientMessageId);
        this.startNextQueued();
      });
  }

  /**
   * turn/interrupt: answers at once. Drops the queue, cancels steers in
   * interception, cancels a start still in its input hooks (it answers
   * cancelled), and stops the running turn (a turn that is only starting
   * stops as soon as it has).
   */
  interrupt(turnId?: string): boolean {
    if (turnId !== undefined && turnId !== this.running) {
      throw rpcError("turnMismatch", this.running ? `the running turn is ${this.running}, not ${turnId}` : "no turn is running");
    }
    if (this.queue.length > 0) {
      this.queue.length = 0;
      this.host.queueChanged();
    }
    this.cancelSteers(() => true);
    let interrupted = false;
    if (this.admission) {
      this.admission.cancelled = true;
      this.admission.controller.abort();
      interrupted = true;
    }
    if (this.launching) {
      this.launching.interruptRequested = true;
      interrupted = true;
    }
    if (this.running) {
      this.host.runtime.session.abort();
      interrupted = true;
    }
    return interrupted;
  }

  /** Unloading: nothing new starts, waiting steers are cancelled, the running turn stops. */
  close(): void {
    this.closed = true;
    this.interrupt();
  }

  /** Resolves once no turn is running or settling. */
  async idle(): Promise<void> {
    while (this.settling) await this.settling;
  }
}
