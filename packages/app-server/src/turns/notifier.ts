import type { AgentSession, SessionEvent, StartMeta, TurnController, TurnErrors } from "@knightcode/agent";
import type { QueueSnapshot, Turn as WireTurn } from "@knightcode/app-server-protocol";
import { turnForWire, TurnWireCache } from "../payloads/refs.js";
import type { PayloadSink } from "../payloads/store.js";
import { rpcError } from "../rpc/errors.js";
import { modelError } from "../threads/model-error.js";
import { LiveTurnItems, type ItemSink } from "./live-items.js";
import { turnSummary } from "./summary.js";

/** The controller's refusals as the wire's errors, and a start's model problems as the protocol says them. */
export const WIRE_TURN_ERRORS: TurnErrors = { refused: rpcError, startFailed: modelError };

export interface TurnNotifications {
  started(turn: WireTurn, requestId: string | undefined): void;
  completed(turn: WireTurn): void;
  queueChanged(queue: QueueSnapshot): void;
  /** A queued input could not start. */
  dropped(message: string, clientMessageId: string | undefined): void;
}

/** What the notifier needs from its thread. */
export interface TurnNotifierHost {
  readonly turns: TurnController;
  readonly session: AgentSession;
  /** Where a running turn's notifications go: the thread's subscribers and, for outcomes, every connection. */
  readonly out: TurnNotifications;
  /** A turn began or ended, or a wait opened or closed: the thread's status may have changed. */
  activityChanged(): void;
  /** The item notifications of the turn `turnId`. */
  itemSink(turnId: string): ItemSink;
  /** Whether the user declined a call at the approval gate. */
  isDeclined(callId: string): boolean;
  /** A turn that may change files started (not a compaction): its working tree's first snapshot. */
  turnBegan?(turnId: string): void;
  /** That turn's run is over and reported: the second snapshot, before the thread is idle again. */
  turnSettling?(turnId: string): Promise<void>;
}

/** The running turn as the wire shows it: its items so far, and their wire forms kept between resumes. */
interface LiveTurn {
  readonly id: string;
  readonly startedAt: number;
  readonly items: LiveTurnItems;
  wire: TurnWireCache;
}

/**
 * The server's side of a thread's turns: what the controller and the
 * session report becomes notifications (turn/started, item/*,
 * turn/completed, turn/queue/updated), and the running turn's items are
 * kept as the wire shows them for a resume. It decides nothing.
 */
export class TurnNotifier {
  private live: LiveTurn | undefined;
  /** The queue or the steers changed since the last turn/queue/updated went out. */
  private queueDirty = false;
  private readonly stop: (() => void)[];

  constructor(private readonly host: TurnNotifierHost) {
    this.stop = [
      host.turns.observe({
        started: ({ id, startedAt, meta, tracksFiles }) => this.started(id, startedAt, meta, tracksFiles),
        completed: (end) => {
          this.live = undefined;
          host.out.completed(turnSummary(end));
        },
        queueChanged: () => this.queueChanged(),
        activityChanged: () => host.activityChanged(),
        dropped: (message, clientMessageId) => host.out.dropped(message, clientMessageId),
        settling: (turnId) => host.turnSettling?.(turnId),
      }),
      host.session.subscribe((event) => this.onSessionEvent(event)),
    ];
  }

  private started(id: string, startedAt: number, meta: StartMeta, tracksFiles: boolean): void {
    const wire = new TurnWireCache();
    const sink = this.host.itemSink(id);
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
    this.live = { id, startedAt, items: new LiveTurnItems(id, remembering, meta.clientMessageId, (callId) => this.host.isDeclined(callId)), wire };
    if (tracksFiles) this.host.turnBegan?.(id);
    this.host.out.started({ id, status: "inProgress", startedAt }, meta.requestId);
  }

  private onSessionEvent(event: SessionEvent): void {
    if (event.type === "turn_start" || event.type === "turn_end") return;
    this.live?.items.handle(event);
  }

  /** The running turn as it stands, for thread/resume's `runningTurn`. */
  runningTurn(): WireTurn | undefined {
    const live = this.running();
    return live ? { id: live.id, status: "inProgress", startedAt: live.startedAt, items: live.items.snapshot() } : undefined;
  }

  /** The running turn as thread/resume sends it: what earlier resumes measured and stored is reused. */
  runningTurnForWire(store: PayloadSink): WireTurn | undefined {
    const turn = this.runningTurn();
    const live = this.running();
    if (!turn || !live) return undefined;
    live.wire ??= new TurnWireCache();
    return turnForWire(turn, store, live.wire);
  }

  private running(): LiveTurn | undefined {
    return this.live !== undefined && this.host.turns.runningTurnId === this.live.id ? this.live : undefined;
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
    this.host.out.queueChanged(this.host.turns.queueSnapshot());
  }

  dispose(): void {
    for (const stop of this.stop.splice(0)) stop();
  }
}
