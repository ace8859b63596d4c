import type { SessionFile } from "@knightcode/store/session/session-file";
import type { TranscriptWriter } from "@knightcode/agent/run/transcript-writer";
import type { TurnController } from "@knightcode/agent/turn/controller";
import type { Warning } from "@knightcode/system/warning";
import type { WorkspaceState } from "@knightcode/store/session/format";
import { SessionFileError } from "@knightcode/store/session/errors";
import { threadPlace } from "@knightcode/repo/worktrees/workspace";
import type { ServerNotificationMethod, ServerNotificationParams } from "@knightcode/app-server-protocol";
import { Asker } from "../asking/asker.js";
import type { PendingRequests } from "../asking/pending-requests.js";
import type { Logger } from "../host/log.js";
import type { Connection } from "../rpc/connection.js";
import { DELTAS } from "../rpc/outbox.js";
import type { SequencedEvent } from "../rpc/thread-holds.js";
import { EventRing } from "./event-ring.js";
import type { ThreadSequences } from "./sequences.js";
import type { Broadcaster } from "./thread-activity.js";

export interface ThreadCoreOptions {
  file: SessionFile;
  log: Logger;
  writer: TranscriptWriter;
  /** The owner of the thread's turns: its queue for turn/queue/updated, its waits for what is asked. */
  turns: TurnController;
  /** The global setting requests.holdSeconds, in milliseconds, as it stands now. */
  holdMs(): number;
  /** Where the server lists what its threads wait on. */
  requests: PendingRequests;
  /** The seq of every thread, which outlives this one's unloading. */
  sequences: ThreadSequences;
  /** The server's notifications to every connection. */
  broadcaster: Broadcaster;
  /** How many of the latest notifications are kept to replay. */
  replayEvents: number;
  /** A sub-agent's parent, which its subscribers hear it through and which answers for it. */
  parent?: ParentLink;
}

/** What a sub-agent's thread needs of its parent: who is subscribed to it now (nobody while it is not loaded). */
export interface ParentLink {
  threadId: string;
  /** Not copied: iterate it at once. */
  subscribers(): Iterable<Connection>;
}

/**
 * What a thread is before anything runs on it: its id, transcript and
 * writer, log, subscribers and the notifications they get, and the one
 * asker that puts questions to them. Everything else of the thread is
 * built on it.
 */
export class ThreadCore {
  readonly id: string;
  readonly file: SessionFile;
  /** Where the thread runs, as its transcript said when it loaded: a move appends a workspace entry and loads it again. */
  readonly place: WorkspaceState;
  readonly log: Logger;
  readonly writer: TranscriptWriter;
  /** Puts approvals, ask_user's questions and dialogs to one subscriber at a time. */
  readonly asker: Asker;
  /** Problems found while loading: the answer that opened the thread, and every later resume, carries them. */
  readonly loadWarnings: Warning[] = [];
  /** The connection that most recently started work here: approvals ask it first. */
  lastInitiator: Connection | undefined;
  /** Each subscriber, with the disposer of the close listener it holds on that connection. */
  private readonly subscribers = new Map<Connection, () => void>();
  private opened = false;
  /** The queue or the steers changed since the last turn/queue/updated went out. */
  private queueDirty = false;
  /** What was sent lately, to replay: made when the first sequenced client subscribes, dropped on unload. */
  private ring: EventRing | undefined;
  /** Sends to every connection what is about this thread, numbered as what its subscribers are sent. */
  readonly broadcaster: Broadcaster;

  constructor(private readonly options: ThreadCoreOptions) {
    this.file = options.file;
    this.id = options.file.header.id;
    this.place = threadPlace(options.file.header, options.file.summary());
    this.log = options.log;
    this.writer = options.writer;
    this.asker = new Asker({
      threadId: this.id,
      // A sub-agent's requests reach its parent's subscribers too: someone who watches the work can answer them.
      subscribers: () => this.askable(),
      lastInitiator: () => this.lastInitiator,
      waitOn: (kind) => options.turns.waitOn(kind),
      holdMs: () => options.holdMs(),
      requests: options.requests,
      held: (method, ms) => this.log.info(`${method} held: nobody is subscribed; the next subscriber is asked (for ${Math.round(ms / 1000)} s)`),
    });
    this.broadcaster = { broadcast: (method, params) => options.broadcaster.broadcast(method, params, this.stamp(method, params)) };
  }

  get hasSubscribers(): boolean {
    return this.subscribers.size > 0;
  }

  /** Who may be asked for this thread: its subscribers, then its parent's. */
  private askable(): Connection[] {
    const own = [...this.subscribers.keys()];
    const parent = this.options.parent ? [...this.options.parent.subscribers()] : [];
    return parent.length === 0 ? own : [...own, ...parent.filter((connection) => !this.subscribers.has(connection))];
  }

  /** The connections subscribed now, oldest first. */
  subscriberConnections(): Connection[] {
    return [...this.subscribers.keys()];
  }

  /** The same, not copied: for what iterates them at once, per notification. */
  subscriberView(): Iterable<Connection> {
    return this.subscribers.keys();
  }

  /** False when it was subscribed already or has closed. What is held for a subscriber is asked of it. */
  subscribe(connection: Connection, onClose: () => void): boolean {
    if (connection.state === "closed" || this.subscribers.has(connection)) return false;
    this.subscribers.set(connection, connection.onClose(onClose));
    this.asker.subscriberJoined();
    if (connection.sequenced) this.ring ??= new EventRing(this.options.sequences.current(this.id), this.options.replayEvents);
    return true;
  }

  /** False when it was not subscribed. What is asked of it moves to another subscriber. */
  unsubscribe(connection: Connection): boolean {
    const stopWatching = this.subscribers.get(connection);
    if (!stopWatching) return false;
    stopWatching();
    this.subscribers.delete(connection);
    if (this.lastInitiator === connection) this.lastInitiator = undefined;
    this.asker.subscriberLeft(connection);
    return true;
  }

  /** Every subscriber goes, nothing is asked of anyone any more, and nothing is kept to replay. */
  dropSubscribers(): void {
    for (const stopWatching of this.subscribers.values()) stopWatching();
    this.subscribers.clear();
    this.lastInitiator = undefined;
    this.ring = undefined;
  }

  /**
   * Numbers a notification about this thread as sent to its subscribers
   * (and keeps it to replay, once a sequenced client subscribed): its seq.
   */
  stamp<M extends ServerNotificationMethod>(method: M, params: ServerNotificationParams<M>): number {
    const seq = this.options.sequences.next(this.id);
    this.ring?.record({ seq, method, params });
    return seq;
  }

  /** Every notification sent after `afterSeq`, oldest first, when all are still held; undefined when not. */
  replayAfter(afterSeq: number): SequencedEvent[] | undefined {
    return this.ring?.after(afterSeq, this.options.sequences.current(this.id));
  }

  /**
   * A notification to this thread's subscribers. A queue update still
   * pending goes first, so nothing overtakes it; deltas, which never depend
   * on the queue, do not wait for it.
   */
  send<M extends ServerNotificationMethod>(method: M, params: ServerNotificationParams<M>): void {
    if (method !== "turn/queue/updated" && !DELTAS.has(method)) this.flushQueueUpdate();
    const seq = this.stamp(method, params);
    for (const connection of this.subscribers.keys()) connection.notify(method, params, seq);
    const parent = this.options.parent;
    if (parent === undefined) return;
    // A parent's subscriber that opted in hears its sub-agents without subscribing to them, told whose they are.
    let forwarded: ServerNotificationParams<M> | undefined;
    for (const connection of parent.subscribers()) {
      if (!connection.subagents || this.subscribers.has(connection)) continue;
      forwarded ??= { ...params, parentThreadId: parent.threadId };
      connection.notify(method, forwarded, seq);
    }
  }

  /**
   * The queue changed: one turn/queue/updated goes out at the end of this
   * turn of the event loop, with the queue as it then stands, however many
   * changes came before it. Each update lists the whole queue, so one per
   * change would let a burst of adds cost every subscriber the square of
   * the queue's size.
   */
  queueChanged(): void {
    if (this.queueDirty) return;
    this.queueDirty = true;
    setImmediate(() => this.flushQueueUpdate());
  }

  /**
   * Sends the pending queue update now, if there is one. Everything the
   * thread sends goes after it, so an update is never overtaken by what
   * follows from it: the turn/started of an input it took off the queue,
   * the turn/completed of an interrupt that dropped it.
   */
  flushQueueUpdate(): void {
    if (!this.queueDirty) return;
    this.queueDirty = false;
    this.send("turn/queue/updated", { threadId: this.id, ...this.options.turns.queueSnapshot() });
  }

  /** What took the transcript from this process (another owner, or a probe that failed); undefined while it is ours. */
  ownershipLost(): SessionFileError | undefined {
    let reason: string | undefined;
    try {
      reason = this.file.probeOwnership();
    } catch (error) {
      reason = (error as Error).message;
    }
    return reason === undefined ? undefined : new SessionFileError("ownershipLost", `${this.file.path}: ${reason}`, { path: this.file.path });
  }

  /** The answer that opened the thread went out: later warnings go to subscribers and the log. */
  markOpened(): void {
    this.opened = true;
  }

  /**
   * A problem after loading began. Nobody is subscribed before the answer
   * that opened the thread: a warning until then goes back with it. Later
   * ones also go to the log, which is all that sees one raised while the
   * thread unloads.
   */
  warn(warning: Warning): void {
    if (!this.opened) {
      this.loadWarnings.push(warning);
      return;
    }
    this.log.warn(warning.path ? `${warning.message} (${warning.path})` : warning.message);
    this.sendWarning(warning);
  }

  /** A warning to subscribers. */
  sendWarning(warning: Warning): void {
    this.send("warning", { threadId: this.id, warning });
  }
}
