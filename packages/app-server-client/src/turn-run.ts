import type { ClientRequestParams, ClientRequestResult, ServerNotificationMethod, ServerNotificationParams } from "@knightcode/app-server-protocol";
import type { AppServerClient } from "./client.js";
import type { RequestOptions } from "./client-options.js";
import { ClientError } from "./errors.js";
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
   */
  events: AsyncIterable<E>;
  /** The turn as `turn/completed` reports it (completed, failed or interrupted). */
  completed: Promise<ServerNotificationParams<"turn/completed">["turn"]>;
}

/** The run `runTurn` resolves to for these options: with `requests` true (or a boolean not known to be false), its events include requests. */
export type TurnRunFor<O extends TurnOptions> = true extends O["requests" & keyof O] ? TurnRun<TurnEvent | TurnRequestEvent> : TurnRun;

/** What following a turn needs of the client. */
type TurnClient = Pick<AppServerClient, "request" | "onAnyNotification" | "closed" | "interceptRequests">;

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
  let settleCompleted!: { resolve(turn: ServerNotificationParams<"turn/completed">["turn"]): void; reject(error: Error): void };
  const completed = new Promise<ServerNotificationParams<"turn/completed">["turn"]>((resolve, reject) => (settleCompleted = { resolve, reject }));
  completed.catch(() => undefined);
  const stop = () => {
    done = true;
    unsubscribe();
    release();
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
  void client.closed.then(() => {
    if (done) return;
    settleCompleted.reject(new ClientError("closed", `connection closed before turn ${turnId ?? "(not started)"} completed`));
    stop();
  });
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
  const id = turnId ?? (await Promise.race([started, client.closed.then(() => undefined)]));
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
