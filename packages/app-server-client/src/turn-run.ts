import type { ClientRequestParams, ClientRequestResult, ServerNotificationMethod, ServerNotificationParams } from "@knightcode/app-server-protocol";
import type { AppServerClient } from "./client.js";
import type { RequestOptions } from "./client-options.js";
import { ClientError } from "./errors.js";
import type { ResumedThread } from "./reconnecting.js";
import { turnRequestEvent, type TurnOptions, type TurnRequestEvent } from "./turn-requests.js";

/**
 * One notification as `runTurn` yields it; checking `method` narrows `params`.
 * With `{requests: true}`, `events` yields `TurnEvent | TurnRequestEvent`: a
 * server request's event carries `request` as well, and its `method` (none of
 * them a notification's) narrows `params` and `request.respond`.
 */
export type TurnEvent = { [M in ServerNotificationMethod]: { method: M; params: ServerNotificationParams<M> } }[ServerNotificationMethod];

/** What `turn/start` takes, without the thread: a text, or the full params. */
export type TurnInput = string | Omit<ClientRequestParams<"turn/start">, "threadId">;

export interface TurnRun<E = TurnEvent> {
  turnId: string;
  threadId: string;
  /**
   * That turn's notifications, in order, from `turn/started` to `turn/completed`
   * (inclusive); the iteration ends after `turn/completed`. Buffered from the
   * start, so iterating late misses nothing. One iteration per run. With
   * `{requests: true}`, the turn's server requests too, where the wire had them.
   * Across a ReconnectingClient's reconnection the missed ones are replayed in
   * place; when the server could not replay them, see `completed`.
   */
  events: AsyncIterable<E>;
  /**
   * The turn as `turn/completed` reports it (completed, failed or
   * interrupted). On a ReconnectingClient whose reconnection could not replay
   * what was missed: the turn as the resumed history shows it when it ended
   * meanwhile (the events then end without a `turn/completed`), or a `closed`
   * ClientError when the thread or the turn could not be found again.
   */
  completed: Promise<Completed>;
}

type Completed = ServerNotificationParams<"turn/completed">["turn"];

/** The run `runTurn` resolves to for these options: with `requests` true (or a boolean not known to be false), its events include requests. */
export type TurnRunFor<O extends TurnOptions> = true extends O["requests" & keyof O] ? TurnRun<TurnEvent | TurnRequestEvent> : TurnRun;

/**
 * What following a turn needs of the client. A client that reconnects
 * (ReconnectingClient) also says how each reconnection resumed the thread,
 * and its `closed` resolves only once it stops for good.
 */
type TurnClient = Pick<AppServerClient, "request" | "onAnyNotification" | "closed" | "interceptRequests"> & {
  onReconnect?(listener: (resumed: ResumedThread[]) => void): () => void;
};

/**
 * Starts a turn and follows it: resolves once the turn has started with its
 * id, its notifications as an async iterable, and a promise of the turn as
 * `turn/completed` reports it. Rejects with the `turn/start` error, or with
 * a `notStarted` ClientError when the input started no turn (a command or
 * an extension handled it). With `requests: true`, the turn's server requests
 * (same thread and turn) are among its events, and no `onRequest` handler
 * sees them: one never answered stays pending, as an unanswered handler's
 * would.
 */
export async function runTurn(
  client: TurnClient,
  threadId: string,
  input: TurnInput,
  options: TurnOptions = {},
): Promise<TurnRun<TurnEvent | TurnRequestEvent>> {
  const { requests, ...requestOptions } = options;
  const params = typeof input === "string" ? { text: input } : input;
  const requestId = params.requestId ?? `run-${globalThis.crypto.randomUUID()}`;
  const events = new EventBuffer<TurnEvent | TurnRequestEvent>();
  let turnId: string | undefined;
  let done = false;
  let markStarted!: (turnId: string) => void;
  const started = new Promise<string>((resolve) => (markStarted = resolve));
  let settleCompleted!: { resolve(turn: Completed): void; reject(error: Error): void };
  const completed = new Promise<Completed>((resolve, reject) => (settleCompleted = { resolve, reject }));
  completed.catch(() => undefined);
  let stopFollowing: (() => void) | undefined;
  const stop = () => {
    done = true;
    unsubscribe();
    release();
    stopFollowing?.();
    events.end();
  };
  const unsubscribe = client.onAnyNotification((method, raw) => {
    const p = raw as { threadId?: string; turnId?: string; requestId?: string; turn?: { id?: string } };
    if (p?.threadId !== threadId || method === "thread/turn/completed") return;
    if (turnId === undefined) {
      if (method !== "turn/started" || p.requestId !== requestId || !p.turn?.id) return;
      turnId = p.turn.id;
      markStarted(turnId);
    }
    if (p.turnId !== turnId && p.turn?.id !== turnId) return;
    events.push({ method, params: raw } as TurnEvent);
    if (method === "turn/completed") {
      settleCompleted.resolve((raw as ServerNotificationParams<"turn/completed">).turn);
      stop();
    }
  });
  // Taken in the same dispatch as the notifications, so a request sits among them in wire order.
  const release = requests
    ? client.interceptRequests((request) => {
        const event = done ? undefined : turnRequestEvent(request, threadId, turnId);
        if (!event) return false;
        events.push(event);
        return true;
      })
    : () => undefined;
  const fail = (cause?: Error) => {
    if (done) return;
    settleCompleted.reject(new ClientError("closed", `connection closed before turn ${turnId ?? "(not started)"} completed`, undefined, cause));
    stop();
  };
  stopFollowing = client.onReconnect?.((resumed) => {
    if (done) return;
    const outcome = afterReconnect(resumed, threadId, turnId);
    if (outcome.kind === "ended") {
      settleCompleted.resolve(outcome.turn);
      stop();
    } else if (outcome.kind === "lost") fail(outcome.cause);
  });
  void client.closed.then(() => fail());
  let answer: ClientRequestResult<"turn/start">;
  try {
    answer = await client.request("turn/start", { ...params, threadId, requestId }, requestOptions satisfies RequestOptions);
  } catch (error) {
    stop();
    throw error;
  }
  if (answer.status !== "started") {
    stop();
    throw new ClientError("notStarted", `turn/start answered ${answer.status}: the input started no turn`);
  }
  const ended = completed.then(
    () => undefined,
    () => undefined,
  );
  const id = turnId ?? (await Promise.race([started, ended, client.closed.then(() => undefined)]));
  if (id === undefined) throw new ClientError("closed", "connection closed before the turn started");
  return { turnId: id, threadId, events: events.iterable, completed };
}

/** A run's events as they come, for one iteration that waits at the end until more come or the run ends. */
class EventBuffer<E> {
  private readonly events: E[] = [];
  private ended = false;
  private iterated = false;
  private wake: (() => void) | undefined;
  readonly iterable: AsyncIterable<E> = { [Symbol.asyncIterator]: () => this.iterate() };

  push(event: E): void {
    this.events.push(event);
    this.wake?.();
  }

  end(): void {
    this.ended = true;
    this.wake?.();
  }

  private iterate(): AsyncIterator<E> {
    if (this.iterated) throw new Error("a turn's events can be iterated once");
    this.iterated = true;
    let next = 0;
    return {
      next: async (): Promise<IteratorResult<E>> => {
        while (next >= this.events.length && !this.ended) await new Promise<void>((resolve) => (this.wake = resolve));
        if (next < this.events.length) return { value: this.events[next++]!, done: false };
        return { value: undefined, done: true };
      },
    };
  }
}

/**
 * What became of a turn when the connection following it came back. The
 * notifications it missed were replayed (`replayed: true`): they reach the
 * run like any other, so it goes on. Otherwise the answer is a snapshot: a
 * turn still running goes on (what it sent meanwhile is missed), a turn that
 * ended meanwhile ends as its history says, and a thread that could not be
 * resumed, or a turn the snapshot does not show, ends the run `closed`.
 */
function afterReconnect(
  resumed: readonly ResumedThread[],
  threadId: string,
  turnId: string | undefined,
): { kind: "follows" } | { kind: "ended"; turn: Completed } | { kind: "lost"; cause?: Error } {
  const entry = resumed.find((thread) => thread.threadId === threadId);
  if (entry === undefined) return { kind: "lost" };
  if (!entry.ok) return { kind: "lost", cause: entry.error };
  const { result } = entry;
  if (result.replayed === true) return { kind: "follows" };
  if (turnId === undefined) return { kind: "lost" };
  if (result.runningTurn?.id === turnId) return { kind: "follows" };
  const ended = result.turns.find((turn) => turn.id === turnId && turn.status !== "inProgress");
  return ended ? { kind: "ended", turn: ended } : { kind: "lost" };
}
