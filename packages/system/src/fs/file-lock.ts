import { randomBytes } from "node:crypto";
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";
import { currentProcess, isCertainlyDead, type ProcessIdentity } from "./process-identity.js";

export interface LockHolder extends ProcessIdentity {
  token: string;
  acquiredAt: number;
  /** What the lock is for, for messages: "session", "settings", ... */
  purpose?: string;
}

/** The lock is held by another live process; `holder` says which, when it could be read. */
export class LockHeldError extends Error {
  readonly code = "lockHeld";
  constructor(
    readonly lockPath: string,
    readonly holder: LockHolder | undefined,
  ) {
    super(holder ? `${lockPath} is held by process ${holder.pid} on ${holder.host}` : `${lockPath} is held by another process`);
  }
}

const BREAKER_STALE_MS = 5_000;

function readHolder(path: string): LockHolder | undefined {
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as Partial<LockHolder>;
    if (typeof parsed.pid !== "number" || typeof parsed.host !== "string" || typeof parsed.token !== "string") return undefined;
    return parsed as LockHolder;
  } catch {
    return undefined;
  }
}

/** O_EXCL create: the one atomic step every lock here rests on. */
function createExclusive(path: string, content: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, "wx", 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  return true;
}

function lockAgeMs(path: string): number {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}

/**
 * Removes a stale lock. Breakers serialize on a short-lived `.break` file and
 * re-check under it, so a lock is only removed by someone who found it stale
 * while no other breaker could act: a fresh lock taken meanwhile is never
 * removed by mistake.
 */
function breakIfStale(lockPath: string, isStale: (current: LockHolder | undefined) => boolean): void {
  const breaker = `${lockPath}.break`;
  if (!createExclusive(breaker, String(process.pid))) {
    // A breaker that died mid-break leaves its file; age tells.
    if (lockAgeMs(breaker) > BREAKER_STALE_MS) unlinkQuietly(breaker);
    return;
  }
  try {
    if (isStale(readHolder(lockPath))) unlinkQuietly(lockPath);
  } finally {
    unlinkQuietly(breaker);
  }
}

/**
 * A cross-process lock: a file beside what it guards, created with O_EXCL and
 * holding its owner's identity. A lock left by a process that died is
 * recovered; one held by a live process (or one on another host) never is.
 */
export class FileLock {
  private released = false;

  private constructor(
    readonly path: string,
    readonly holder: LockHolder,
  ) {}

  /** Takes the lock now or throws LockHeldError. */
  static acquire(path: string, purpose?: string): FileLock {
    const holder: LockHolder = { ...currentProcess(), token: randomBytes(12).toString("hex"), acquiredAt: Date.now(), purpose };
    const content = JSON.stringify(holder) + "\n";
    for (let attempt = 0; attempt < 3; attempt++) {
      if (createExclusive(path, content)) return new FileLock(path, holder);
      const current = readHolder(path);
      if (current === undefined) {
        // Unreadable: a holder caught between create and write, or garbage left by a crash. Only age makes it stale.
        if (lockAgeMs(path) <= BREAKER_STALE_MS) throw new LockHeldError(path, undefined);
        breakIfStale(path, (now) => now === undefined && lockAgeMs(path) > BREAKER_STALE_MS);
        continue;
      }
      if (!isCertainlyDead(current)) throw new LockHeldError(path, current);
      breakIfStale(path, (now) => now?.token === current.token && isCertainlyDead(now));
    }
    throw new LockHeldError(path, readHolder(path));
  }

  /** Takes the lock, retrying until `timeoutMs` passes while another process holds it. */
  static async acquireWithin(path: string, timeoutMs: number, purpose?: string, signal?: AbortSignal): Promise<FileLock> {
    const deadline = Date.now() + timeoutMs;
    let delay = 2;
    for (;;) {
      try {
        return FileLock.acquire(path, purpose);
      } catch (error) {
        if (!(error instanceof LockHeldError) || Date.now() >= deadline || signal?.aborted) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 50);
    }
  }

  /** Reads who holds a lock without taking it. */
  static holderOf(path: string): LockHolder | undefined {
    return readHolder(path);
  }

  /** Whether the lock file on disk is still ours (another process may have broken it wrongly, or a user deleted it). */
  isStillHeld(): boolean {
    if (this.released) return false;
    return readHolder(this.path)?.token === this.holder.token;
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    if (this.isOwnedOnDisk()) unlinkQuietly(this.path);
  }

  private isOwnedOnDisk(): boolean {
    return readHolder(this.path)?.token === this.holder.token;
  }
}
