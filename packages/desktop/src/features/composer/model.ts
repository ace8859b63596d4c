import { signal, type ReadonlySignal } from "@preact/signals";
import { AppServerError } from "@knightcode/app-server-client/browser";
import type { ClientRequestResult, ImageInput, ReviewCommentInput, ThreadSettingsUpdateParams } from "@knightcode/app-server-protocol";
import type { Connection } from "../../connection/connection.js";

/**
 * The composer model: the owner of what the user sends. It decides how a
 * message goes (a turn of its own, a queued follow-up, a steer of the
 * running turn), keeps the user's own messages shown as sending until the
 * transcript holds them, and removes or takes back queued ones. The
 * composer and the first screen are views over it. It reaches the server
 * only through the connection it is given, so a test hands it a client over
 * the in-memory transport.
 */

export interface Outgoing {
  threadId: string;
  text: string;
  images: ImageInput[];
}

/**
 * A message on its way: shown at once under the conversation, marked as
 * sending until the server answers, and gone once the transcript holds the
 * item with its clientMessageId (or the turn it started has ended).
 */
export interface Sending {
  clientMessageId: string;
  text: string;
  /** The server answered turn/start: the turn runs, its items are on their way. */
  confirmed: boolean;
  /** How many turns the transcript showed when it was sent: a later ended turn settles it even without the item. */
  turnsBefore: number;
}

/** What the model needs of a connection: the page's `Connection`, or a test's in-process client. */
export type ComposerConnection = Pick<Connection, "request" | "on">;

export interface ComposerDeps {
  /** Asked at each use: the page's connection is set after the model is made. */
  conn: () => ComposerConnection;
  /** How many turns the thread's transcript shows now. */
  turnsShown: (threadId: string) => number;
  /** A command that replaced the session answered with another thread: the page follows it. */
  follow: (threadId: string) => void;
  /**
   * Resolves once the thread's reload after thread/replaced (a handoff, a
   * rewind), if one is under way, has been taken: a turn started before
   * then would stream into the state that reload then replaces.
   */
  reloaded: (threadId: string) => Promise<void>;
  /** The review comments waiting to go with the next message, taken (and given back when the server refuses it). */
  takeComments: (threadId: string) => ReviewCommentInput[];
  restoreComments: (threadId: string, comments: ReviewCommentInput[]) => void;
}

export interface ComposerModel {
  /** Per thread, the messages sent and not yet seen in the transcript. */
  sending: ReadonlySignal<ReadonlyMap<string, readonly Sending[]>>;
  /** The transcript has it (or settled it): it need not show as sending any longer. */
  forgetSending(threadId: string, clientMessageId: string): void;
  /**
   * Sends a message the way the thread's state allows: a turn of its own
   * when idle, a queued follow-up while a turn runs. A start refused with
   * turnInProgress (the thread got busy meanwhile) is queued instead.
   */
  send(message: Outgoing, busy: boolean): Promise<"started" | "queued">;
  /**
   * Hands the message to the running turn. The turn the page knows may be
   * stale: turnMismatch names the one that runs, tried once more. A turn
   * that ended first (turnEnded, or nothing running) makes it a message of its own.
   */
  steer(message: Outgoing, turnId: string | undefined): Promise<"steered" | "queued">;
  /** Removes a queued follow-up; false when it had already started (or was gone). */
  removeQueued(threadId: string, queueId: string): Promise<boolean>;
  /** Stops the running turn (the server drops the queued follow-ups). */
  interrupt(threadId: string): Promise<void>;
  /** Follows the thread's turns starting and ending; returns the undo. */
  onTurns(threadId: string, started: (turnId: string) => void, ended: (turnId: string) => void): () => void;
  /** The model, thinking level or approval mode of the thread's next turns. */
  updateSettings(threadId: string, change: Omit<ThreadSettingsUpdateParams, "threadId">): Promise<ClientRequestResult<"thread/settings/update">>;
  listModels(): Promise<ClientRequestResult<"model/list">>;
  /** The `/` commands the thread offers. */
  commands(threadId: string): Promise<ClientRequestResult<"command/list">>;
  /** The `@` file search; a newer search of the same thread's box supersedes this one. */
  searchFiles(threadId: string, cwd: string, query: string, limit: number): Promise<ClientRequestResult<"file/search">>;
}

const withImages = (images: ImageInput[]) => (images.length > 0 ? { images } : {});

export function createComposerModel(deps: ComposerDeps): ComposerModel {
  const sending = signal<ReadonlyMap<string, readonly Sending[]>>(new Map());

  function changeSending(threadId: string, change: (list: readonly Sending[]) => readonly Sending[]): void {
    const next = new Map(sending.peek());
    const list = change(next.get(threadId) ?? []);
    if (list.length > 0) next.set(threadId, list);
    else next.delete(threadId);
    sending.value = next;
  }

  function forgetSending(threadId: string, clientMessageId: string): void {
    changeSending(threadId, (list) => list.filter((m) => m.clientMessageId !== clientMessageId));
  }

  async function deliver(message: Outgoing, busy: boolean, comments: ReviewCommentInput[]): Promise<"started" | "queued"> {
    const { threadId } = message;
    const clientMessageId = crypto.randomUUID();
    const params = { threadId, text: message.text, clientMessageId, ...withImages(message.images), ...(comments.length > 0 ? { comments } : {}) };
    if (!busy) {
      // Shown before the request leaves: the user sees their message at once, not after the round trip.
      changeSending(threadId, (list) => [...list, { clientMessageId, text: message.text, confirmed: false, turnsBefore: deps.turnsShown(threadId) }]);
      try {
        await deps.reloaded(threadId);
        const started = await deps.conn().request("turn/start", params);
        if (started.status === "started" && started.threadId === threadId) {
          changeSending(threadId, (list) => list.map((m) => (m.clientMessageId === clientMessageId ? { ...m, confirmed: true } : m)));
        } else forgetSending(threadId, clientMessageId);
        if (started.threadId !== threadId) deps.follow(started.threadId);
        return "started";
      } catch (error) {
        forgetSending(threadId, clientMessageId);
        if (!(error instanceof AppServerError && error.code === "turnInProgress")) throw error;
      }
    }
    // A queued follow-up shows in the queue list, not as sending.
    await deps.conn().request("turn/queue/add", params);
    return "queued";
  }

  async function send(message: Outgoing, busy: boolean): Promise<"started" | "queued"> {
    const comments = deps.takeComments(message.threadId);
    try {
      return await deliver(message, busy, comments);
    } catch (error) {
      deps.restoreComments(message.threadId, comments);
      throw error;
    }
  }

  async function steer(message: Outgoing, turnId: string | undefined): Promise<"steered" | "queued"> {
    let expected = turnId;
    for (let attempt = 0; attempt < 2 && expected; attempt++) {
      try {
        await deps.conn().request("turn/steer", { threadId: message.threadId, text: message.text, expectedTurnId: expected, ...withImages(message.images) });
        return "steered";
      } catch (error) {
        if (!(error instanceof AppServerError)) throw error;
        if (error.code === "turnMismatch") {
          const running = (error.data as { runningTurnId?: unknown } | undefined)?.runningTurnId;
          expected = typeof running === "string" ? running : undefined;
          continue;
        }
        if (error.code === "invalidParams" && (error.data as { reason?: unknown } | undefined)?.reason === "turnEnded") break;
        throw error;
      }
    }
    await send(message, false);
    return "queued";
  }

  async function removeQueued(threadId: string, queueId: string): Promise<boolean> {
    return (await deps.conn().request("turn/queue/remove", { threadId, queueId })).removed;
  }

  return {
    sending,
    forgetSending,
    send,
    steer,
    removeQueued,
    async interrupt(threadId) {
      await deps.conn().request("turn/interrupt", { threadId });
    },
    onTurns(threadId, started, ended) {
      const c = deps.conn();
      const stops = [
        c.on("turn/started", (p) => {
          if (p.threadId === threadId) started(p.turn.id);
        }),
        c.on("turn/completed", (p) => {
          if (p.threadId === threadId) ended(p.turn.id);
        }),
      ];
      return () => {
        for (const stop of stops) stop();
      };
    },
    updateSettings: (threadId, change) => deps.conn().request("thread/settings/update", { threadId, ...change }),
    listModels: () => deps.conn().request("model/list", {}),
    commands: (threadId) => deps.conn().request("command/list", { threadId }),
    searchFiles: (threadId, cwd, query, limit) => deps.conn().request("file/search", { cwd, query, limit, searchId: `composer-${threadId}` }),
  };
}
