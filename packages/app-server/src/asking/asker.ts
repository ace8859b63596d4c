import { AppServerError, type ServerRequestMethod, type ServerRequestParams } from "@knightcode/app-server-protocol";
import type { Connection } from "../rpc/connection.js";
import type { Waiting } from "@knightcode/agent/turn/run-record";
import type { PendingRequests } from "./pending-requests.js";

export interface AskerHost {
  readonly threadId: string;
  /** Open subscribers, oldest first. */
  subscribers(): Connection[];
  /** The connection that most recently started work on the thread: asked first. */
  lastInitiator(): Connection | undefined;
  /** Something is open until the returned release runs: the thread's waitingOn. */
  waitOn(kind: Waiting): () => void;
  /** How long a request nobody can be asked waits for the thread's next subscriber, when the last to leave held requests; 0: not at all. */
  holdMs(): number;
  /** Where the server lists what it waits on. */
  readonly requests: PendingRequests;
  /** A request began to wait for the thread's next subscriber, for at most `ms`. */
  held?(method: ServerRequestMethod, ms: number): void;
}

/**
 * What came of asking: the answer as the client sent it, an error it
 * answered with, nobody answered, or nobody came to answer while it was
 * held (see `holdRequests`).
 */
export type AskOutcome = { kind: "answered"; result: unknown } | { kind: "refused" } | { kind: "unanswered" } | { kind: "unattended" };

/** What an unattended request's call says, to the model and in its item: nobody declined it. */
export function unattendedMessage(what: string): string {
  return `Cancelled: nobody was connected to answer ${what}; the turn stops.`;
}

interface Outstanding {
  target: Connection;
  attempt: AbortController;
  moveTo?: Connection;
  moved: boolean;
}

/** How one asking of one connection ended: an outcome, a move to another client, or its client left. */
type Attempt = { kind: "done"; outcome: AskOutcome } | { kind: "moved"; to: Connection } | { kind: "left" };

const UNANSWERED: AskOutcome = { kind: "unanswered" };

/**
 * How a thread asks its user anything (an approval, ask_user's questions,
 * an extension's dialog): one subscriber at a time, the most recent
 * initiator first. A request moves when its subscriber unsubscribes or
 * disconnects, moves to a client that resumes the thread, and is withdrawn
 * with `serverRequest/cancelled` when the signal aborts (an interrupt, a
 * fault) or the thread closes. With nobody left to ask it is unanswered,
 * unless the last to leave held requests: then it waits for the thread's
 * next subscriber, up to the hold, and is unattended when none came.
 */
export class Asker {
  private readonly outstanding = new Set<Outstanding>();
  /** Requests held for a subscriber: each wakes when one subscribes. */
  private readonly held = new Set<() => void>();
  private readonly closed = new AbortController();
  /** Whether the last subscriber to leave the thread held requests: what a request begun with nobody to ask does. */
  private lastLeaverHolds = false;

  constructor(private readonly host: AskerHost) {}

  async ask<M extends ServerRequestMethod>(
    method: M,
    params: ServerRequestParams<M>,
    options: { kind: Waiting; signal?: AbortSignal; prefer?: Connection },
  ): Promise<AskOutcome> {
    const signals = [this.closed.signal, ...(options.signal ? [options.signal] : [])];
    if (signals.some((s) => s.aborted)) return UNANSWERED;
    const release = this.host.waitOn(options.kind);
    const itemId = (params as { itemId?: unknown }).itemId;
    const unlist = this.host.requests.add({ threadId: this.host.threadId, method, ...(typeof itemId === "string" ? { itemId } : {}), since: Date.now() });
    try {
      // The connection whose request this is, when it asked: else whoever last started work here.
      return await this.askUntilSettled(method, params, signals, options.prefer ?? this.host.lastInitiator());
    } finally {
      unlist();
      release();
    }
  }

  private async askUntilSettled<M extends ServerRequestMethod>(
    method: M,
    params: ServerRequestParams<M>,
    signals: AbortSignal[],
    first: Connection | undefined,
  ): Promise<AskOutcome> {
    let preferred = first;
    let holds = this.lastLeaverHolds;
    let holdUntil: number | undefined;
    for (;;) {
      if (signals.some((s) => s.aborted)) return UNANSWERED;
      const target = this.pick(preferred);
      if (!target) {
        const holdMs = holds ? this.host.holdMs() : 0;
        if (holdMs <= 0) return UNANSWERED;
        // One hold per absence: a subscriber that comes and goes unasked does not restart it.
        if (holdUntil === undefined) {
          holdUntil = Date.now() + holdMs;
          this.host.held?.(method, holdMs);
        }
        if ((await this.holdFor(holdUntil - Date.now(), signals)) === "expired") return { kind: "unattended" };
        preferred = undefined;
        continue;
      }
      holdUntil = undefined;
      const attempt = await this.attempt(target, method, params, signals);
      if (attempt.kind === "done") return attempt.outcome;
      preferred = attempt.kind === "moved" ? attempt.to : undefined;
      if (attempt.kind === "left") holds = target.holdsRequests;
    }
  }

  private async attempt<M extends ServerRequestMethod>(
    target: Connection,
    method: M,
    params: ServerRequestParams<M>,
    signals: AbortSignal[],
  ): Promise<Attempt> {
    const outstanding: Outstanding = { target, attempt: new AbortController(), moved: false };
    const withdraw = () => outstanding.attempt.abort();
    for (const signal of signals) signal.addEventListener("abort", withdraw, { once: true });
    this.outstanding.add(outstanding);
    try {
      return { kind: "done", outcome: { kind: "answered", result: await target.request(method, params, { signal: outstanding.attempt.signal }) } };
    } catch (error) {
      if (signals.some((s) => s.aborted)) return { kind: "done", outcome: UNANSWERED };
      if (outstanding.moved) return outstanding.moveTo ? { kind: "moved", to: outstanding.moveTo } : { kind: "left" };
      if (error instanceof AppServerError) return { kind: "done", outcome: { kind: "refused" } };
      // Its connection closed under the request: ask someone else; anything stranger is a refusal.
      return target.state === "closed" ? { kind: "left" } : { kind: "done", outcome: { kind: "refused" } };
    } finally {
      for (const signal of signals) signal.removeEventListener("abort", withdraw);
      this.outstanding.delete(outstanding);
    }
  }

  /** Waits until someone subscribes, `ms` pass or a signal aborts; the timer and listeners go however it ends. */
  private holdFor(ms: number, signals: AbortSignal[]): Promise<"joined" | "expired" | "stopped"> {
    return new Promise((resolve) => {
      const end = (how: "joined" | "expired" | "stopped") => {
        clearTimeout(timer);
        this.held.delete(joined);
        for (const signal of signals) signal.removeEventListener("abort", stopped);
        resolve(how);
      };
      const joined = () => end("joined");
      const stopped = () => end("stopped");
      const timer = setTimeout(() => end("expired"), Math.max(0, ms));
      this.held.add(joined);
      for (const signal of signals) signal.addEventListener("abort", stopped, { once: true });
    });
  }

  private pick(preferred: Connection | undefined): Connection | undefined {
    const open = this.host.subscribers().filter((c) => c.state !== "closed");
    if (preferred && open.includes(preferred)) return preferred;
    return open.at(-1);
  }

  /** Someone subscribed (a resume, a turn, a fork...): what is held for a subscriber is asked of it now. */
  subscriberJoined(): void {
    for (const wake of [...this.held]) wake();
  }

  /** A subscriber left (unsubscribed or disconnected): what it was asked moves on. */
  subscriberLeft(connection: Connection): void {
    this.lastLeaverHolds = connection.holdsRequests;
    for (const outstanding of this.outstanding) {
      if (outstanding.target !== connection) continue;
      outstanding.moved = true;
      outstanding.attempt.abort();
    }
  }

  /** A client resumed the thread: what another client was asked moves to it. */
  subscriberResumed(connection: Connection): void {
    for (const outstanding of this.outstanding) {
      if (outstanding.target === connection) continue;
      outstanding.moved = true;
      outstanding.moveTo = connection;
      outstanding.attempt.abort();
    }
  }

  /** The thread closes: everything still asked or held is withdrawn and nothing more is. */
  close(): void {
    this.closed.abort();
  }
}
