import type { SessionEvent } from "../run/events.js";
import type { QueuedView } from "./input-queue.js";
import type { StartMeta } from "./run-record.js";

export type TurnEnd = Extract<SessionEvent, { type: "turn_end" }>;

/** What the controller reports; the server turns each into its notifications. */
export interface TurnObserver {
  /** The start entry is written; the start request is answered right after. */
  started(turn: { id: string; startedAt: number; meta: StartMeta; tracksFiles: boolean }): void;
  /** A started turn ended: reported exactly once. */
  completed(end: TurnEnd): void;
  /** The queued inputs or the accepted steers changed. */
  queueChanged(): void;
  /** A turn began or ended, or a wait opened or closed: the thread's status may have changed. */
  activityChanged(): void;
  /** A queued input could not start. */
  dropped(message: string, clientMessageId: string | undefined): void;
  /** Everything else the session reports (items, usage, retries), in order, after what the controller made of it. */
  sessionEvent?(event: SessionEvent): void;
  /** The turn's run is over and reported: its bookkeeping (the working tree's second snapshot), before the thread is idle again. */
  settling?(turnId: string): Promise<void> | undefined;
}

export interface TurnLog {
  warn(message: string): void;
  error(message: string, error: unknown): void;
}

export interface QueueState {
  steering: string[];
  followUp: QueuedView[];
}

export const SILENT_OBSERVER: TurnObserver = {
  started: () => undefined,
  completed: () => undefined,
  queueChanged: () => undefined,
  activityChanged: () => undefined,
  dropped: () => undefined,
};
