import type { ClientRequestParams, ClientRequestResult, ServerNotificationMethod, ServerNotificationParams } from "@knightcode/app-server-protocol";
import type { AppServerClient } from "./client.js";
import type { RequestOptions } from "./client-options.js";
import { ClientError } from "./errors.js";
import type { ResumedThread } from "./reconnecting.js";

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
   * start, so iterating late misses nothing. One iteration per run. Across a
   * ReconnectingClient's reconnection the missed ones are replayed in place;
   * when the server could not replay them, see `completed`.
   */
  events: AsyncIterable<TurnEvent>;
  /**
   * The turn as `turn/completed` reports it (completed, failed or
   * interrupted). On a ReconnectingClient whose reconnection could not replay
   * what was missed: the turn as the resumed history shows it when it ended
   * meanwhile (the events then end without a `turn/completed`), or a `closed`
   * ClientError when the thread or the turn could not be found again.
   */
  completed: Promise<ServerNotificationParams<"turn/completed">["turn"]>;
}

/**
 * What following a turn needs of the client. A client that reconnects
 * (ReconnectingClient) also says how each reconnection resumed the thread,
 * and its `closed` resolves only once it stops for good.
 */
type TurnClient = Pick<AppServerClient, "request" | "onAnyNotification" | "closed"> & {
  onReconnect?(listener: (resumed: ResumedThread[]) => void): () => void;
};

type Completed = ServerNotificationParams<"turn/completed">["turn"];

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
  let settleCompleted!: { resolve(turn: Completed): void; reject(error: Error): void };
  const completed = new Promise<Completed>((resolve, reject) => (settleCompleted = { resolve, reject }));
  completed.catch(() => undefined);
  let stopFollowing: (() => void) | undefined;
  const stop = () => {
    done = true;
    unsubscribe();
    stopFollowing?.();
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
    answer = await client.request("turn/start", { ...params, threadId, requestId }, options);
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
