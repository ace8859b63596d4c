import { signal, type Signal } from "@preact/signals";
import { conn } from "../../connection/connection.js";

/** An environment script's output in a thread's worktree, as far as it came. */
export interface ScriptLog {
  phase: "setup" | "cleanup";
  output: string;
  done: boolean;
  exitCode?: number | null;
}

/** The server bounds a script's output to 1 MiB; the page keeps the newest part of that. */
const KEEP_CHARS = 200_000;
const logs = new Map<string, Signal<ScriptLog | undefined>>();

export function scriptLog(threadId: string): Signal<ScriptLog | undefined> {
  let entry = logs.get(threadId);
  if (!entry) logs.set(threadId, (entry = signal(undefined)));
  return entry;
}

let stop: (() => void) | undefined;

/**
 * Collects `thread/workspace/progress` for every thread. Idempotent: the
 * panel calls it on mount, and the shell may call it at start so a setup
 * that runs before the panel opens is kept too.
 */
export function watchWorkspaceProgress(): () => void {
  stop ??= conn().on("thread/workspace/progress", ({ threadId, phase, output, done, exitCode }) => {
    const entry = scriptLog(threadId);
    const before = entry.value?.phase === phase && !entry.value.done ? entry.value.output : "";
    entry.value = {
      phase,
      output: (before + output).slice(-KEEP_CHARS),
      done: done ?? false,
      ...(done ? { exitCode: exitCode ?? null } : {}),
    };
  });
  return () => {
    stop?.();
    stop = undefined;
  };
}
