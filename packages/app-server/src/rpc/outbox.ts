import type { ServerTransport } from "../transport/types.js";

/**
 * Past this many bytes left unread, a connection is behind: a state
 * notification waits for it to catch up, the newest replacing older ones, and
 * the deltas of an item it is behind on are skipped.
 */
export const BEHIND_BYTES = 8 * 1024 * 1024;

type Params = Record<string, unknown>;
type Message = Record<string, unknown>;

const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/**
 * Notifications that carry a piece of state whole, with what they are the
 * state of: a newer one makes an older one pointless to send.
 */
const STATE_OF: Readonly<Record<string, (params: Params) => string | undefined>> = {
  "turn/queue/updated": (p) => text(p.threadId),
  "thread/status/changed": (p) => text(p.threadId),
  "thread/name/updated": (p) => text(p.threadId),
  "thread/tokenUsage/updated": (p) => text(p.threadId),
  "ui/state": (p) => text(p.threadId),
  "ui/widget": (p) => `${text(p.threadId)}\u0000${text(p.key)}`,
};

/** Items whose streaming one connection keeps track of at most (see Outbox.streaming). */
const MAX_STREAMING_ITEMS = 1024;

/** Notifications that stream an item's text: many, small, and `item/completed` carries the whole of it. */
export const DELTAS: ReadonlySet<string> = new Set(["item/agentMessage/delta", "item/reasoning/delta"]);

/** When a message goes out: at once, at its job's end even while output streams, with the rest of the event loop's turn, or with what follows it in that turn (see ServerTransport). */
export type Timing = "now" | "soon" | "later" | "together";

/**
 * A turn's end: it goes out with what the end changed after it (the
 * broadcast, the thread's status, requests withdrawn), so a client that
 * reads that the turn ended reads those in the same read. The sync of the
 * turn's end entry returns in a turn of the event loop of its own, where
 * the end would otherwise be the first message and go out alone.
 */
const TURN_ENDS: ReadonlySet<string> = new Set(["turn/completed", "thread/turn/completed"]);

/** The thread a message's params are about: its `threadId`, or the id of the `thread` it carries. */
export function threadOf(params: Params): string | undefined {
  const thread = params.thread;
  return text(params.threadId) ?? (thread && typeof thread === "object" ? text((thread as Params).id) : undefined);
}

/**
 * What one connection is sent while it reads slower than the server
 * writes. A client that does not read is cut off by its transport once 64
 * MiB wait unread; this keeps what others cause (another client's queue
 * churn, a model streaming fast) from pushing it there:
 *
 * - a state notification (a queue, a status, a name, usage, extension UI)
 *   waits while the connection is behind; a newer one of the same state
 *   replaces it, so the wait costs one message per state, however often it
 *   changed;
 * - an item's deltas stop for this connection from the first one it is
 *   behind on until the item completes, whose `item/completed` carries the
 *   whole text: the client's text stops growing, but never has a gap;
 * - everything else is sent as it comes. What waits for a thread goes out
 *   before the next thing sent for that thread, so the order of a thread's
 *   notifications is kept; everything waiting goes out once the client has
 *   caught up.
 */
export class Outbox {
  /** State notifications waiting, oldest first, by method and what they are the state of. */
  private readonly waiting = new Map<string, { threadId: string | undefined; message: Message }>();
  /** Items whose deltas this connection no longer gets, with their thread. */
  private readonly skipped = new Map<string, string | undefined>();
  /**
   * Items this connection was sent a delta of, with their thread: their
   * next deltas go out with the rest of the event loop's turn (`later`),
   * never in a write of their own. An item's first delta is what a client
   * waits for (`soon`); the ones after it stream.
   */
  private readonly streaming = new Map<string, string | undefined>();

  constructor(
    private readonly transport: ServerTransport,
    private readonly write: (message: Message, when?: Timing) => void,
  ) {}

  private get behind(): boolean {
    return this.transport.backlog() > BEHIND_BYTES;
  }

  notify(method: string, params: Params): void {
    const threadId = threadOf(params);
    if (DELTAS.has(method)) return this.delta(method, params, threadId);
    const state = STATE_OF[method];
    if (state && this.behind) {
      const key = `${method}\u0000${state(params)}`;
      // Deleted first, so a replaced state moves to the end: it is sent in the order of the newest changes.
      this.waiting.delete(key);
      this.waiting.set(key, { threadId, message: { method, params } });
      return;
    }
    this.before(threadId);
    this.itemEnded(method, params, threadId);
    this.write({ method, params }, TURN_ENDS.has(method) ? "together" : "now");
  }

  /** A server request about `threadId` goes out: what waits for that thread goes first. */
  request(threadId: string | undefined, message: Message): void {
    this.before(threadId);
    this.write(message);
  }

  /** The client caught up: everything waiting goes out. */
  drained(): void {
    if (this.waiting.size > 0 && !this.behind) this.send(() => true);
  }

  private delta(method: string, params: Params, threadId: string | undefined): void {
    const itemId = text(params.itemId);
    if (itemId === undefined || this.skipped.has(itemId)) return;
    if (this.behind) {
      this.skipped.set(itemId, threadId);
      return;
    }
    this.before(threadId);
    const later = this.streaming.has(itemId);
    if (!later) {
      // Items whose end this connection never hears (it left their thread mid-stream) must not pile up over a day:
      // forgetting them all costs only a write for each one's next delta.
      if (this.streaming.size >= MAX_STREAMING_ITEMS) this.streaming.clear();
      this.streaming.set(itemId, threadId);
    }
    this.write({ method, params }, later ? "later" : "soon");
  }

  /** Before something else goes out: all that waits once the client caught up, else what waits for the same thread. */
  private before(threadId: string | undefined): void {
    if (this.waiting.size === 0) return;
    if (!this.behind) this.send(() => true);
    else if (threadId !== undefined) this.send((waiting) => waiting === threadId);
  }

  private send(which: (threadId: string | undefined) => boolean): void {
    for (const [key, { threadId, message }] of this.waiting) {
      if (!which(threadId)) continue;
      this.waiting.delete(key);
      this.write(message);
    }
  }

  /** An item ended (completed, withdrawn, or its turn is over): nothing of it is skipped or streaming any more. */
  private itemEnded(method: string, params: Params, threadId: string | undefined): void {
    for (const items of [this.skipped, this.streaming]) {
      if (items.size === 0) continue;
      if (method === "item/completed") items.delete(text((params.item as Params | undefined)?.id) ?? "");
      else if (method === "item/removed") items.delete(text(params.itemId) ?? "");
      else if (method === "turn/completed") for (const [itemId, thread] of items) if (thread === threadId) items.delete(itemId);
    }
  }
}
