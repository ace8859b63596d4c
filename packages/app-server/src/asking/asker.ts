import { AppServerError, type ServerRequestMethod, type ServerRequestParams } from "@knightcode/app-server-protocol";
import type { Connection } from "../rpc/connection.js";
import type { Waiting } from "@knightcode/agent/turn/run-record";

export interface AskerHost {
  /** Open subscribers, oldest first. */
  subscribers(): Connection[];
  /** The connection that most recently started work on the thread: asked first. */
  lastInitiator(): Connection | undefined;
  /** Something is open until the returned release runs: the thread's waitingOn. */
  waitOn(kind: Waiting): () => void;
}

/** What came of asking: the answer as the client sent it, an error it answered with, or nobody answered. */
export type AskOutcome = { kind: "answered"; result: unknown } | { kind: "refused" } | { kind: "unanswered" };

interface Outstanding {
  target: Connection;
  attempt: AbortController;
  moveTo?: Connection;
  moved: boolean;
}

/**
 * How a thread asks its user anything (an approval, ask_user's questions,
 * an extension's dialog): one subscriber at a time, the most recent
 * initiator first. A request moves when its subscriber unsubscribes or
 * disconnects, moves to a client that resumes the thread, and is withdrawn
 * with `serverRequest/cancelled` when the signal aborts (an interrupt, a
 * fault) or the thread closes. With nobody left to ask it is unanswered.
 */
export class Asker {
  private readonly outstanding = new Set<Outstanding>();
  private readonly closed = new AbortController();

  constructor(private readonly host: AskerHost) {}

  async ask<M extends ServerRequestMethod>(
    method: M,
    params: ServerRequestParams<M>,
    options: { kind: Waiting; signal?: AbortSignal; prefer?: Connection },
  ): Promise<AskOutcome> {
    const signals = [this.closed.signal, ...(options.signal ? [options.signal] : [])];
    const stopped = () => signals.some((s) => s.aborted);
    // The connection whose request this is, when it asked: else whoever last started work here.
    let preferred = options.prefer ?? this.host.lastInitiator();
    if (stopped()) return { kind: "unanswered" };
    const release = this.host.waitOn(options.kind);
    try {
      for (;;) {
        if (stopped()) return { kind: "unanswered" };
        const target = this.pick(preferred);
        if (!target) return { kind: "unanswered" };
        const outstanding: Outstanding = { target, attempt: new AbortController(), moved: false };
        const withdraw = () => outstanding.attempt.abort();
        for (const signal of signals) signal.addEventListener("abort", withdraw, { once: true });
        this.outstanding.add(outstanding);
        try {
          return { kind: "answered", result: await target.request(method, params, { signal: outstanding.attempt.signal }) };
        } catch (error) {
          if (stopped()) return { kind: "unanswered" };
          if (outstanding.moved) {
            preferred = outstanding.moveTo;
            continue;
          }
          if (error instanceof AppServerError) return { kind: "refused" };
          // Its connection closed under the request: ask someone else; anything stranger is a refusal.
          if (target.state !== "closed") return { kind: "refused" };
          preferred = undefined;
        } finally {
          for (const signal of signals) signal.removeEventListener("abort", withdraw);
          this.outstanding.delete(outstanding);
        }
      }
    } finally {
      release();
    }
  }

  private pick(preferred: Connection | undefined): Connection | undefined {
    const open = this.host.subscribers().filter((c) => c.state !== "closed");
    if (preferred && open.includes(preferred)) return preferred;
    return open.at(-1);
  }

  /** A subscriber left (unsubscribed or disconnected): what it was asked moves on. */
  subscriberLeft(connection: Connection): void {
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

  /** The thread closes: everything still asked is withdrawn and nothing more is. */
  close(): void {
    this.closed.abort();
  }
}
