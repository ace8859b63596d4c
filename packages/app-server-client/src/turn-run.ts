import type { ClientRequestParams, ClientRequestResult, ServerNotificationMethod, ServerNotificationParams } from "@knightcode/app-server-protocol";
import type { AppServerClient } from "./client.js";
import type { RequestOptions } from "./client-options.js";
import { ClientError } from "./errors.js";

/** One notification as `runTurn` yields it; checking `method` narrows `params`. */
export type TurnEvent = { [M in ServerNotificationMethod]: { method: M; params: ServerNotificationParams<M> } }[ServerNotificationMethod];

/** What `turn/start` takes, without the thread: a text, or the full params. */
export type TurnInput = string | Omit<ClientRequestParams<"turn/start">, "threadId">;

export interface TurnRun {
  turnId: string;
  threadId: string;
  /**
   * That turn's notifications, in order, from `turn/started` to `turn/completed`
   * (inclusive); the iteration ends after `turn/completed`. Buffered from the
   * start, so iterating late misses nothing. One iteration per run.
   */
  events: AsyncIterable<TurnEvent>;
  /** The turn as `turn/completed` reports it (completed, failed or interrupted). */
  completed: Promise<ServerNotificationParams<"turn/completed">["turn"]>;
}

/** What following a turn needs of the client. */
type TurnClient = Pick<AppServerClient, "request" | "onAnyNotification" | "closed">;

/**
 * Starts a turn and follows it: resolves once the turn has started with its
 * id, its notifications as an async iterable, and a promise of the turn as
 * `turn/completed` reports it. Rejects with the `turn/start` error, or with
 * a `notStarted` ClientError when the input started no turn (a command or
 * an extension handled it).
 */
export async function runTurn(client: TurnClient, threadId: string, input: TurnInput, options: RequestOptions = {}): Promise<TurnRun> {
  const params = typeof input === "string" ? { text: input } : input;
  const requestId = params.requestId ?? `run-${globalThis.crypto.randomUUID()}`;
  const events: TurnEvent[] = [];
  let turnId: string | undefined;
  let done = false;
  let wake: (() => void) | undefined;
  let markStarted!: (turnId: string) => void;
  const started = new Promise<string>((resolve) => (markStarted = resolve));
  let settleCompleted!: { resolve(turn: ServerNotificationParams<"turn/completed">["turn"]): void; reject(error: Error): void };
  const completed = new Promise<ServerNotificationParams<"turn/completed">["turn"]>((resolve, reject) => (settleCompleted = { resolve, reject }));
  completed.catch(() => undefined);
  const stop = () => {
    done = true;
    unsubscribe();
    wake?.();
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
    wake?.();
    if (method === "turn/completed") {
      settleCompleted.resolve((raw as ServerNotificationParams<"turn/completed">).turn);
      stop();
    }
  });
  void client.closed.then(() => {
    if (done) return;
    settleCompleted.reject(new ClientError("closed", `connection closed before turn ${turnId ?? "(not started)"} completed`));
    stop();
  });
  let answer: ClientRequestResult<"turn/start">;
  try {
    answer = await client.request("turn/start", { ...params, threadId, requestId }, options);
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
  let iterated = false;
  const iterable: AsyncIterable<TurnEvent> = {
    [Symbol.asyncIterator]: () => {
      if (iterated) throw new Error("a turn's events can be iterated once");
      iterated = true;
      let next = 0;
      return {
        next: async (): Promise<IteratorResult<TurnEvent>> => {
          while (next >= events.length && !done) await new Promise<void>((resolve) => (wake = resolve));
          if (next < events.length) return { value: events[next++]!, done: false };
          return { value: undefined, done: true };
        },
      };
    },
  };
  return { turnId: id, threadId, events: iterable, completed };
}
