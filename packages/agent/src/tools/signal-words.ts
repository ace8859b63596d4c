import { constants } from "node:os";

/** Where the signals that stop a command usually come from, for a reader who must decide what to do next. */
const CAUSES: Partial<Record<NodeJS.Signals, string>> = {
  SIGKILL: "SIGKILL usually comes from another process, or from the system when memory runs out",
  SIGTERM: "SIGTERM is a request to stop, usually from another process",
  SIGINT: "SIGINT is an interrupt, usually from another process or a terminal",
  SIGHUP: "SIGHUP usually means the terminal or session the command belonged to went away",
};

/**
 * How a command that ended by `signal` ended, in words a user can act on.
 * Only the signals that come from outside get an explanation: a crash
 * (SIGSEGV, SIGABRT, ...) is the program's own doing and its name says so.
 */
export function killedBySignal(signal: NodeJS.Signals | null): string {
  if (signal === null) return "killed by a signal";
  const cause = CAUSES[signal];
  return cause === undefined ? `killed by signal ${signal}` : `killed by signal ${signal} before it finished (${cause})`;
}

/**
 * A shell reports a child that died by signal N as exit status 128 + N:
 * the name of that signal, or undefined for a status that cannot be one.
 * A program may exit with such a status on its own, so callers say "probably".
 */
export function signalOfShellStatus(code: number): NodeJS.Signals | undefined {
  if (code <= 128 || code > 128 + 64) return undefined;
  const number = code - 128;
  const entry = Object.entries(constants.signals).find(([, value]) => value === number);
  return entry?.[0] as NodeJS.Signals | undefined;
}

/** How a command that exited with `code` ended, naming the signal a shell status of 128 + N points at. */
export function exitedWithCode(code: number): string {
  const signal = signalOfShellStatus(code);
  if (signal === undefined) return `exited with code ${code}`;
  const cause = CAUSES[signal];
  return `exited with code ${code}: a process it ran was probably killed by signal ${signal} (128 + ${code - 128})${cause === undefined ? "" : `; ${cause}`}`;
}
