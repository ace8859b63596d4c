import type { AgentTool } from "@mariozechner/pi-agent-core";
import type { TurnError } from "./error-kind.js";
import type { TurnEndStatus } from "./transcript.js";

/**
 * Where a turn stands. `admitting`: its input passes the input hooks.
 * `starting`: the session took it and is about to write its start entry.
 * `running`: the start entry is written. `settling`: the run decided to end
 * and no input joins any more. `ended`: the end entry is written.
 */
export type TurnPhase = "admitting" | "starting" | "running" | "settling" | "ended";

export interface TurnOutcome {
  status: TurnEndStatus;
  error?: TurnError;
  completedAt: number;
}

const NEXT: Record<TurnPhase, readonly TurnPhase[]> = {
  admitting: ["starting"],
  starting: ["running"],
  running: ["settling"],
  settling: ["ended"],
  ended: [],
};

/**
 * One turn, from the moment its input is admitted to its end entry: the one
 * record of it. Its owner creates it and may interrupt it; the session that
 * runs it moves it along as it writes the start and end entries. Everyone
 * else reads it; nobody keeps a copy of its state.
 */
export class TurnRecord {
  private phaseValue: TurnPhase = "admitting";
  private readonly controller = new AbortController();
  private idValue: string | undefined;
  private startedAtValue: number | undefined;
  private outcomeValue: TurnOutcome | undefined;
  private faultValue: TurnError | undefined;
  /** Tools offered in this turn only, beside the thread's (a review turn's report_finding). */
  tools: AgentTool[] = [];

  get phase(): TurnPhase {
    return this.phaseValue;
  }

  /** The start entry's id; undefined until the turn runs. */
  get id(): string | undefined {
    return this.idValue;
  }

  get startedAt(): number | undefined {
    return this.startedAtValue;
  }

  get outcome(): TurnOutcome | undefined {
    return this.outcomeValue;
  }

  /** Aborted when the turn is interrupted: input hooks, the model request, tools and retry waits listen to it. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Stopped: by an interrupt, or by a fault of the thread (then `fault` says which). */
  get interrupted(): boolean {
    return this.controller.signal.aborted;
  }

  /** What stopped the turn when it was not the user: it ends failed with this error. */
  get fault(): TurnError | undefined {
    return this.faultValue;
  }

  /** Whether input may still join: the turn runs and was neither interrupted nor decided to end. */
  get accepting(): boolean {
    return this.phaseValue === "running" && !this.interrupted;
  }

  /** Stops the turn wherever it is. False when it had ended or was already interrupted. */
  interrupt(): boolean {
    if (this.phaseValue === "ended" || this.interrupted) return false;
    this.controller.abort(new Error("interrupted"));
    return true;
  }

  /**
   * Stops the turn because the thread cannot go on (its transcript can no
   * longer be written): it ends failed with `error`. An interrupt that came
   * first wins, as interrupted outcomes take precedence over failures.
   */
  fail(error: TurnError): void {
    if (this.phaseValue === "ended" || this.interrupted) return;
    this.faultValue = error;
    this.controller.abort(new Error(error.message));
  }

  /** The input hooks are done: the session takes the turn. */
  launch(): void {
    this.move("starting");
  }

  /** The start entry is written under `id`. */
  begin(id: string, startedAt: number): void {
    this.move("running");
    this.idValue = id;
    this.startedAtValue = startedAt;
  }

  /** The run decided to end; from here no input joins. Safe to call again. */
  settle(): void {
    if (this.phaseValue !== "settling") this.move("settling");
  }

  /** The end entry is written. */
  end(outcome: TurnOutcome): void {
    this.move("ended");
    this.outcomeValue = outcome;
  }

  private move(to: TurnPhase): void {
    if (!NEXT[this.phaseValue].includes(to)) throw new Error(`a turn cannot go from ${this.phaseValue} to ${to}`);
    this.phaseValue = to;
  }
}

/** The thread's tools and a turn's own; a thread's tool of the same name yields to the turn's. */
export function withTurnTools(tools: AgentTool[], turnTools: readonly AgentTool[] | undefined): AgentTool[] {
  if (!turnTools || turnTools.length === 0) return tools;
  const names = new Set(turnTools.map((tool) => tool.name));
  return [...tools.filter((tool) => !names.has(tool.name)), ...turnTools];
}
