import { threadFault } from "@knightcode/store/session/fault";
import type { SessionFile } from "@knightcode/store/session/session-file";
import type { UnsavedTail } from "@knightcode/agent/run/unsaved";
import type { ThreadStatus } from "@knightcode/app-server-protocol";
import type { Logger } from "../host/log.js";
import { rpcError } from "../rpc/errors.js";

/**
 * Threads that stopped: their systemError shows until a load succeeds,
 * and what a disk failure kept them from writing waits here for it.
 */
export class ThreadFailures {
  private readonly failures = new Map<string, { message: string; unsaved?: UnsavedTail }>();

  constructor(private readonly log: Logger) {}

  /** The thread stopped with `message`; `unsaved` is what it could not write since, when there is any. */
  stopped(threadId: string, message: string, unsaved?: UnsavedTail): void {
    this.failures.set(threadId, unsaved && unsaved.entries.length > 0 ? { message, unsaved } : { message });
  }

  /** The thread loaded again. */
  loaded(threadId: string): void {
    this.failures.delete(threadId);
  }

  /** The systemError of a thread that stopped and has not loaded since. */
  status(threadId: string): ThreadStatus | undefined {
    const failure = this.failures.get(threadId);
    return failure === undefined ? undefined : { type: "systemError", message: failure.message };
  }

  /**
   * A thread that stopped on a disk failure loads again: what it could not
   * write then is written now, where it left off. Should the disk still
   * fail, the load fails with the same words and keeps the rest for the
   * next try; should the transcript have changed meanwhile, the rest is
   * dropped, since it no longer continues it.
   */
  writeUnsaved(threadId: string, file: SessionFile): void {
    const failure = this.failures.get(threadId);
    const tail = failure?.unsaved;
    if (!failure || !tail) return;
    if (file.leafId !== tail.afterLeafId) {
      this.log.warn(`thread ${threadId}: ${tail.entries.length} unsaved entries are dropped; its transcript changed after it stopped`);
      delete failure.unsaved;
      return;
    }
    let written = 0;
    try {
      for (const { entry, durable } of tail.entries) {
        file.append(entry as never, { durable });
        written++;
      }
    } catch (error) {
      failure.unsaved = { ...tail, afterLeafId: file.leafId, entries: tail.entries.slice(written) };
      file.close();
      throw rpcError("internal", threadFault(error).message);
    }
    if (tail.dropped > 0) this.log.warn(`thread ${threadId}: ${tail.dropped} entries did not fit in memory after it stopped and are lost`);
    delete failure.unsaved;
  }
}
