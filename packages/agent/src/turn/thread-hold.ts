import { newRun, type Phase, type Run, type StartMeta } from "./run-record.js";

/** Why a claim is refused: the thread unloads (undefined while it does not), or a turn holds it. */
export interface HoldRefusals {
  closed(): Error | undefined;
  busy(turnId: string | undefined): Error;
}

/**
 * Who holds the thread: nobody, a turn (from admission to its settled run)
 * or an exclusive change. Its phase changes only here, and the check that
 * finds the thread idle and the taking are one synchronous step, so two
 * callers woken together cannot both take it.
 */
export class ThreadHold {
  private phaseValue: Phase = { kind: "idle" };

  constructor(private readonly refusals: HoldRefusals) {}

  get phase(): Phase {
    return this.phaseValue;
  }

  /** The turn holding the thread, from its admission to its settled run. */
  get run(): Run | undefined {
    return this.phaseValue.kind === "turn" ? this.phaseValue.run : undefined;
  }

  /** The turn between its start and end entries, if any. */
  get runningRun(): Run | undefined {
    const phase = this.run?.turn.phase;
    return phase === "running" || phase === "settling" ? this.run : undefined;
  }

  /**
   * Takes the idle thread for `phase`, waiting out an exclusive change
   * first; a turn, or a thread closing, refuses.
   */
  private async claim<P extends Phase>(phase: () => P): Promise<P> {
    for (;;) {
      const closed = this.refusals.closed();
      if (closed) throw closed;
      const current = this.phaseValue;
      if (current.kind === "idle") {
        this.phaseValue = phase();
        return this.phaseValue as P;
      }
      if (current.kind === "turn" && current.run.completed) {
        await this.finishReported();
        continue;
      }
      if (current.kind === "turn") throw this.refusals.busy(current.run.turn.id);
      await current.done;
    }
  }

  async claimRun(meta: StartMeta): Promise<Run> {
    return (await this.claim(() => ({ kind: "turn" as const, run: newRun(meta) }))).run;
  }

  /**
   * Runs `work` with the thread held: no turn starts until it is done (a
   * start that arrives meanwhile waits for it), and while a turn runs it is
   * refused. Exclusive changes run one after another. `beforeRelease` runs
   * when the work succeeded, before the thread is free again.
   */
  async exclusive<T>(work: () => Promise<T>, beforeRelease?: () => void): Promise<T> {
    let resolve!: () => void;
    const done = new Promise<void>((r) => (resolve = r));
    const phase = await this.claim(() => ({ kind: "exclusive" as const, done }));
    try {
      const result = await work();
      beforeRelease?.();
      return result;
    } finally {
      if (this.phaseValue === phase) this.phaseValue = { kind: "idle" };
      resolve();
    }
  }

  /** A turn takes the thread, which the caller found idle in this same step. */
  take(meta: StartMeta): Run {
    const run = newRun(meta);
    this.phaseValue = { kind: "turn", run };
    return run;
  }

  /** `run` is over: the thread is idle again. */
  free(run: Run): void {
    if (this.run === run) this.phaseValue = { kind: "idle" };
    run.finish();
  }

  /**
   * Waits out a turn that was already reported completed and only finishes
   * its bookkeeping (the working tree's second snapshot): to a client it
   * has ended, so what it asks next must not find it running.
   */
  async finishReported(): Promise<void> {
    for (let run = this.run; run?.completed; run = this.run) await run.done;
  }

  /** Resolves once no turn or exclusive change holds the thread. */
  async settled(): Promise<void> {
    for (let phase = this.phaseValue; phase.kind !== "idle"; phase = this.phaseValue) await (phase.kind === "turn" ? phase.run.done : phase.done);
  }
}
