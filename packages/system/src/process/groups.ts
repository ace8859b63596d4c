/** Sends a signal to a process group, or probes it with 0; throws ESRCH when no member is left. */
export type SignalGroup = (pgid: number, signal: NodeJS.Signals | 0) => void;

/** The timers a group's stop runs on, replaceable so a test can drive them. */
export interface StopTimers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface ProcessGroupsOptions {
  /** Between SIGTERM and SIGKILL when every group is stopped (default 2000 ms). */
  killGraceMs?: number;
  /** How often a stopping group is probed (default 25 ms). */
  pollMs?: number;
  /** How long to wait for a group to vanish after SIGKILL before giving up on it (default 5000 ms). */
  settleMs?: number;
  signal?: SignalGroup;
  timers?: StopTimers;
}

const DEFAULT_KILL_GRACE_MS = 2000;
const DEFAULT_POLL_MS = 25;
// An orphan killed by SIGKILL lingers as a zombie until init reaps it, which some inits do only every few seconds.
const DEFAULT_SETTLE_MS = 5000;

const defaultSignal: SignalGroup = (pgid, signal) => {
  process.kill(-pgid, signal);
};

const realTimers: StopTimers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * One process group a ProcessGroups owns. Once seen gone it is never
 * signalled again: its pgid is free from then on and may name someone
 * else's group.
 */
export class ProcessGroup {
  private seenGone = false;
  private stopping: Promise<void> | undefined;

  constructor(
    readonly pgid: number,
    private readonly owner: ProcessGroups,
  ) {}

  get gone(): boolean {
    return this.seenGone;
  }

  /** Whether any member lives; the first ESRCH makes the owner forget the group. */
  isAlive(): boolean {
    return this.send(0);
  }

  /**
   * SIGTERM, then SIGKILL after `graceMs` if the group still lives (SIGKILL at
   * once for a grace of 0). Resolves once the group is gone, or when it
   * outlives the settle time after SIGKILL; it stays owned then. Never rejects.
   */
  stop(graceMs: number): Promise<void> {
    if (this.seenGone) return Promise.resolve();
    this.stopping ??= new Promise<void>((resolve) => {
      const { timers, pollMs, settleMs } = this.owner.stopSettings;
      let poll: unknown;
      let kill: unknown;
      let giveUp: unknown;
      const finish = (): void => {
        timers.clearTimeout(poll);
        timers.clearTimeout(kill);
        timers.clearTimeout(giveUp);
        this.stopping = undefined;
        resolve();
      };
      const probe = (): void => {
        if (this.isAlive()) poll = timers.setTimeout(probe, pollMs);
        else finish();
      };
      const killNow = (): void => {
        if (this.send("SIGKILL")) giveUp = timers.setTimeout(finish, settleMs);
        else finish();
      };
      if (graceMs <= 0) {
        killNow();
      } else if (this.send("SIGTERM")) {
        kill = timers.setTimeout(killNow, graceMs);
      } else {
        finish();
        return;
      }
      if (!this.seenGone) poll = timers.setTimeout(probe, pollMs);
    });
    return this.stopping;
  }

  /** For the exit hook: no waiting, no timers. */
  killNow(): void {
    this.send("SIGKILL");
  }

  /** The kernel gave this pgid to a new leader, so this group went unseen: never signal it again. */
  retire(): void {
    this.seenGone = true;
  }

  /** Signals the group unless it was seen gone; answers whether it is (as far as we know) still there. */
  private send(signal: NodeJS.Signals | 0): boolean {
    if (this.seenGone) return false;
    try {
      this.owner.signalGroup(this.pgid, signal);
      return true;
    } catch (error) {
      // EPERM: a member we may not signal (it changed its user); the group is still there.
      if ((error as NodeJS.ErrnoException).code !== "ESRCH") return true;
      this.seenGone = true;
      this.owner.forget(this);
      return false;
    }
  }
}

/** Every owner holding at least one group: what the exit hook kills. */
const holders = new Set<ProcessGroups>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // An exit cannot wait for a grace period: SIGKILL, synchronously, whatever is left.
  process.on("exit", () => {
    for (const owner of [...holders]) owner.killNow();
  });
}

/**
 * The process groups one thread started (its bash calls, its extensions'
 * `exec`), owned until each is seen gone. A command's background jobs keep
 * its group alive after the command returns, so the group stays owned until
 * they end or the owner stops them. `dispose` stops them all; should the
 * process exit first, a process-wide exit hook sends SIGKILL to every group
 * any owner still holds.
 */
export class ProcessGroups {
  /** By pgid: a pgid is only reused once its group is gone, so two live groups never share one. */
  private readonly groups = new Map<number, ProcessGroup>();
  private readonly killGraceMs: number;
  private disposing: Promise<void> | undefined;
  /** @internal */
  readonly signalGroup: SignalGroup;
  /** @internal */
  readonly stopSettings: { timers: StopTimers; pollMs: number; settleMs: number };

  constructor(options: ProcessGroupsOptions = {}) {
    this.killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
    this.signalGroup = options.signal ?? defaultSignal;
    this.stopSettings = { timers: options.timers ?? realTimers, pollMs: options.pollMs ?? DEFAULT_POLL_MS, settleMs: options.settleMs ?? DEFAULT_SETTLE_MS };
  }

  /** How many groups are owned: live ones, and gone ones not yet probed since they went. */
  get size(): number {
    return this.groups.size;
  }

  /**
   * Owns the group `pgid` leads (call it right after spawning its leader).
   * A disposed owner stops the group at once: nothing outlives the thread.
   */
  add(pgid: number): ProcessGroup {
    // kill(-1) would signal every process we may signal, kill(-0) our own group.
    if (!Number.isSafeInteger(pgid) || pgid <= 1) throw new RangeError(`not a process group leader's pid: ${pgid}`);
    this.groups.get(pgid)?.retire();
    this.prune();
    const group = new ProcessGroup(pgid, this);
    this.groups.set(pgid, group);
    if (this.groups.size === 1) {
      installExitHook();
      holders.add(this);
    }
    if (this.disposing) group.stop(this.killGraceMs).catch(() => undefined);
    return group;
  }

  /** Forgets every group that has no member left. */
  prune(): void {
    for (const group of [...this.groups.values()]) group.isAlive();
  }

  /** SIGTERM to every owned group, SIGKILL after the grace to those still alive; resolves once they are gone (bounded). */
  async killAll(): Promise<void> {
    await Promise.all([...this.groups.values()].map((group) => group.stop(this.killGraceMs)));
  }

  /** Stops every group; later additions are stopped as they come. Safe to call twice. */
  dispose(): Promise<void> {
    this.disposing ??= this.killAll();
    return this.disposing;
  }

  /** @internal */
  killNow(): void {
    for (const group of [...this.groups.values()]) group.killNow();
  }

  /** @internal */
  forget(group: ProcessGroup): void {
    if (this.groups.get(group.pgid) !== group) return;
    this.groups.delete(group.pgid);
    if (this.groups.size === 0) holders.delete(this);
  }
}

let unowned: ProcessGroups | undefined;

/** The owner of groups started by tools no thread owns: only the exit hook stops their leftovers. */
export function unownedProcessGroups(): ProcessGroups {
  unowned ??= new ProcessGroups();
  return unowned;
}
