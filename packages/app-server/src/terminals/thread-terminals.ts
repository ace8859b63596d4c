import { randomUUID } from "node:crypto";
import type { TerminalProcess } from "@knightcode/app-server-protocol";
import type { LoadedThread } from "../threads/loaded-thread.js";
import { rpcError } from "../rpc/errors.js";
import type { Terminal } from "./terminal.js";

interface Entry {
  terminal: Terminal;
  info: TerminalProcess;
}

/**
 * The commands clients run in one thread, while they run. Their processes
 * belong to the thread's process groups, so they end when it unloads;
 * this only finds them by id and counts them against the setting.
 */
export class ThreadTerminals {
  private readonly running = new Map<string, Entry>();
  /** Starts under way: counted, so two at once cannot pass the limit together. */
  private starting = 0;

  /**
   * Holds a place for a new command, or refuses past `max`; the returned
   * function gives it back (call it once the command is registered, or failed).
   */
  reserve(max: number): () => void {
    if (this.running.size + this.starting >= max) {
      const why = max === 0 ? "terminals.maxPerThread is 0, which turns command/exec off" : `the thread runs ${max} commands already (terminals.maxPerThread)`;
      throw rpcError("invalidParams", `command/exec refused: ${why}; terminate one first`, { maxPerThread: max });
    }
    this.starting++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.starting--;
    };
  }

  /** A new command; its id is returned. */
  add(terminal: Terminal, info: Omit<TerminalProcess, "processId">): string {
    const processId = `proc_${randomUUID()}`;
    this.running.set(processId, { terminal, info: { processId, ...info } });
    return processId;
  }

  remove(processId: string): void {
    this.running.delete(processId);
  }

  /** A running command, or invalidParams saying it is not (any more). */
  require(processId: string): Terminal {
    const entry = this.running.get(processId);
    if (entry === undefined) throw rpcError("invalidParams", `no command/exec process ${processId} runs in this thread (unknown, or it has exited)`);
    return entry.terminal;
  }

  list(): TerminalProcess[] {
    return [...this.running.values()].map((entry) => entry.info);
  }
}

/** Each loaded thread's commands; the entry goes with the thread. */
const byThread = new WeakMap<LoadedThread, ThreadTerminals>();

export function terminalsOf(thread: LoadedThread): ThreadTerminals {
  let terminals = byThread.get(thread);
  if (terminals === undefined) {
    terminals = new ThreadTerminals();
    byThread.set(thread, terminals);
  }
  return terminals;
}
