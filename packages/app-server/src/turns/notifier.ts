import type { TokenUsage } from "@knightcode/agent/run/usage";
import { boundErrorMessage } from "@knightcode/agent/run/error-kind";
import type { SessionEvent } from "@knightcode/agent/run/events";
import type { StartMeta } from "@knightcode/agent/turn/run-record";
import type { TurnController } from "@knightcode/agent/turn/controller";
import type { TurnErrors } from "@knightcode/agent/turn/errors";
import type { ServerNotificationMethod, ServerNotificationParams, Turn as WireTurn } from "@knightcode/app-server-protocol";
import { itemForWire, turnForWire, TurnWireCache } from "../payloads/refs.js";
import type { PayloadSink } from "../payloads/store.js";
import { rpcError } from "../rpc/errors.js";
import { modelError } from "../rpc/model-error.js";
import { LiveTurnItems, type ItemSink } from "./live-items.js";
import { turnSummary } from "./summary.js";

/** The controller's refusals as the wire's errors, and a start's model problems as the protocol says them. */
export const WIRE_TURN_ERRORS: TurnErrors = { refused: rpcError, startFailed: modelError };

export interface TurnNotifications {
  started(turn: WireTurn, requestId: string | undefined): void;
  completed(turn: WireTurn): void;
  /** The queue or the accepted steers changed: one turn/queue/updated goes out for however many changes. */
  queueChanged(): void;
  /** A queued input could not start. */
  dropped(message: string, clientMessageId: string | undefined): void;
}

/** What the notifier needs from its thread. */
export interface TurnNotifierHost {
  readonly turns: TurnController;
  /** Where a running turn's notifications go: the thread's subscribers and, for outcomes, every connection. */
  readonly out: TurnNotifications;
  /** A turn began or ended, or a wait opened or closed: the thread's status may have changed. */
  activityChanged(): void;
  /** A notification to the thread's subscribers. */
  send<M extends ServerNotificationMethod>(method: M, params: ServerNotificationParams<M>): void;
  /** Where an item too large for its notification goes. */
  payloads(): PayloadSink;
  /** Whether the user declined a call at the approval gate. */
  isDeclined(callId: string): boolean;
  /** A turn that may change files started (not a compaction): its working tree's first snapshot. */
  turnBegan?(turnId: string): void;
  /** That turn's run is over and reported: the second snapshot, before the thread is idle again. */
  turnSettling?(turnId: string): Promise<void>;
  /** The thread's usage as the wire shows it, from its own (its sub-agents' added, when it has any). */
  usage?(own: TokenUsage): TokenUsage;
}

/** The running turn as the wire shows it: its items so far, and their wire forms kept between resumes. */
interface LiveTurn {
  readonly id: string;
  readonly startedAt: number;
  readonly items: LiveTurnItems;
  readonly wire: TurnWireCache;
}

/**
 * The server's side of a thread's turns: what the controller and the
 * session report becomes notifications (turn/started, item/*,
 * turn/completed, turn/queue/updated), and the running turn's items are
 * kept as the wire shows them for a resume. It decides nothing.
 */
export class TurnNotifier {
  private live: LiveTurn | undefined;
  private readonly stop: () => void;

  constructor(private readonly host: TurnNotifierHost) {
    this.stop = host.turns.observe({
      started: ({ id, startedAt, meta, tracksFiles }) => this.started(id, startedAt, meta, tracksFiles),
      completed: (end) => {
        this.live = undefined;
        host.out.completed(turnSummary(end));
      },
      queueChanged: () => host.out.queueChanged(),
      activityChanged: () => host.activityChanged(),
      dropped: (message, clientMessageId) => host.out.dropped(message, clientMessageId),
      sessionEvent: (event) => this.onSessionEvent(event),
      settling: (turnId) => host.turnSettling?.(turnId),
    });
  }

  private started(id: string, startedAt: number, meta: StartMeta, tracksFiles: boolean): void {
    const wire = new TurnWireCache();
    const sink = this.itemSink(id);
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

  private itemSink(turnId: string): ItemSink {
    const payloads = this.host.payloads();
    const base = { threadId: this.host.turns.threadId, turnId };
    const send = this.host.send;
    return {
      started: (item) => send("item/started", { ...base, item: itemForWire(item, payloads) }),
      completed: (item) => send("item/completed", { ...base, item: itemForWire(item, payloads) }),
      removed: (itemId) => send("item/removed", { ...base, itemId }),
      agentDelta: (itemId, delta) => send("item/agentMessage/delta", { ...base, itemId, delta }),
      reasoningDelta: (itemId, delta) => send("item/reasoning/delta", { ...base, itemId, delta }),
    };
  }

  /** The running turn's items first, then what the event says of the thread (its usage, a retry). */
  private onSessionEvent(event: SessionEvent): void {
    this.live?.items.handle(event);
    const threadId = this.host.turns.threadId;
    if (event.type === "usage") {
      const usage = this.host.usage ? this.host.usage(event.usage) : event.usage;
      this.host.send("thread/tokenUsage/updated", { threadId, ...(event.turnId ? { turnId: event.turnId } : {}), usage });
    } else if (event.type === "retry") {
      this.host.send("turn/retrying", {
        threadId,
        turnId: event.turnId,
        attempt: event.attempt,
        maxAttempts: event.maxAttempts,
        delayMs: event.delayMs,
        error: { message: boundErrorMessage(event.error.message), kind: event.error.kind },
      });
    }
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
    return turnForWire(turn, store, live.wire);
  }

  private running(): LiveTurn | undefined {
    return this.live !== undefined && this.host.turns.runningTurnId === this.live.id ? this.live : undefined;
  }

  dispose(): void {
    this.stop();
  }
}
