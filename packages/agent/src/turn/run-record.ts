import type { ImageContent } from "@mariozechner/pi-ai";
import type { AgentTool } from "@mariozechner/pi-agent-core";
import type { ReviewComment } from "@knightcode/repo/git/diff/review-comments";
import type { SessionEvent } from "../run/events.js";
import type { AgentSession } from "../run/session.js";
import { TurnRecord } from "../run/turn.js";

/** The identity a turn's notifications carry from its start. */
export interface StartMeta {
  requestId?: string;
  clientMessageId?: string;
}

export type StartOutcome =
  | { status: "started"; turnId: string }
  /** `threadId`: a command replaced the thread with this one. */
  | { status: "handled"; threadId?: string }
  | { status: "cancelled" };

/** What user input becomes before it joins a turn: a command or an input hook may handle it. */
export type InputOutcome =
  /** `threadId`: a command replaced the thread with this one. */
  { action: "handled"; threadId?: string } | { action: "continue"; text: string; images: ImageContent[] };

export type InputSource = "user" | "queue" | "extension";

/** Runs the input hooks (extension commands, input handlers, templates); aborting the signal stops waiting for them. */
export type ProcessInput = (text: string, images: ImageContent[], source: InputSource, signal?: AbortSignal) => Promise<InputOutcome>;

/** What runs the turns: the session (which shares the controller's steer queue) and the input hooks. */
export interface TurnEngine {
  readonly session: AgentSession;
  readonly processInput: ProcessInput;
}

export type Work =
  | { kind: "input"; text: string; images: ImageContent[]; comments: ReviewComment[]; source: "user" | "queue"; tools?: AgentTool[] }
  | { kind: "compact" }
  | { kind: "extension" };

/** A turn from admission to its settled run: the controller's one record of it. */
export interface Run {
  readonly turn: TurnRecord;
  readonly meta: StartMeta;
  /** Resolves the start request once the start entry is written. */
  started?: (turnId: string) => void;
  /** Its end was reported: a started turn is reported ended exactly once. */
  completed: boolean;
  /** Not a compaction: the working tree is snapshotted around it. */
  tracksFiles: boolean;
  readonly done: Promise<void>;
  finish(): void;
}

export type Phase =
  | { kind: "idle" }
  | { kind: "turn"; run: Run }
  /** A change that must not land inside a turn (settings, later reverts and handoffs): starts wait for it. */
  | { kind: "exclusive"; done: Promise<void> };

export function newRun(meta: StartMeta): Run {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return { turn: new TurnRecord(), meta, completed: false, tracksFiles: false, done, finish: () => finish() };
}

export type Waiting = "approval" | "dialog";

const WAITING_ORDER: readonly Waiting[] = ["approval", "dialog"];

/** How many questions to the user are open, by kind: the thread shows as waiting on each kind with one open. */
export class WaitCounts {
  private readonly counts = new Map<Waiting, number>();

  constructor(private readonly changed: () => void) {}

  waitingOn(): Waiting[] {
    return WAITING_ORDER.filter((kind) => (this.counts.get(kind) ?? 0) > 0);
  }

  /** One more open question of `kind`, until the returned release runs (once). */
  open(kind: Waiting): () => void {
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
    if (this.counts.get(kind) === 1) this.changed();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.counts.get(kind) ?? 1) - 1;
      if (left > 0) this.counts.set(kind, left);
      else this.counts.delete(kind);
      if (left === 0) this.changed();
    };
  }
}

/**
 * The end of a started turn that ended without the session's end event: a
 * fault fails it, a stop interrupts it (interrupted outcomes take
 * precedence), and otherwise it failed with what was thrown.
 */
export function unreportedEnd(turn: TurnRecord, thrown: unknown): Extract<SessionEvent, { type: "turn_end" }> {
  const thrownMessage = thrown instanceof Error ? thrown.message : thrown === undefined ? "the turn ended without finishing" : String(thrown);
  const error = turn.fault ?? (turn.interrupted ? undefined : { message: thrownMessage, kind: "other" as const });
  return {
    type: "turn_end",
    turnId: turn.id!,
    status: error ? "failed" : "interrupted",
    ...(error ? { error } : {}),
    startedAt: turn.startedAt!,
    completedAt: Date.now(),
  };
}
