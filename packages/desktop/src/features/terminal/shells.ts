import { signal, type Signal } from "@preact/signals";
import type { ServerNotificationParams } from "@knightcode/app-server-protocol";
import { conn } from "../../connection/connection.js";
import { reportError } from "../../state/toasts.js";
import type { Emulator } from "./emulator.js";

export type Exited = ServerNotificationParams<"command/exec/exited"> & {
  /** The server no longer ran it when the page came back: its end was not heard (a server restart, the thread unloaded meanwhile). */
  unheard?: true;
};

/**
 * The user's shell, interactive: `command` is a line for `bash -c`, so it
 * replaces that bash with the login shell the server runs under (bash
 * where none is named).
 */
export const SHELL_COMMAND = 'exec "${SHELL:-bash}" -i';

/** One interactive terminal in a thread, from "New terminal" to its close. */
export interface Shell {
  /** The page's own key: a shell is shown before its process exists. */
  key: number;
  /** Its accessible name and title: "Terminal 2". */
  name: string;
  /** Once `command/exec` answered. */
  processId?: string;
  exited?: Exited;
  /** Found running through `command/exec/list` (after a reload): what it printed before is not shown. */
  reattached?: boolean;
  /** Why it could not start. */
  failed?: string;
}

/** A shell's bytes: held until its emulator is there, then written to it as they come. */
class Sink {
  private pending: Uint8Array[] = [];
  private target: Emulator | undefined;

  push(bytes: Uint8Array): void {
    if (this.target) this.target.write(bytes);
    else this.pending.push(bytes);
  }

  attach(emulator: Emulator): void {
    for (const bytes of this.pending.splice(0)) emulator.write(bytes);
    this.target = emulator;
  }
}

const shells = new Map<string, Signal<Shell[]>>();
const sinks = new Map<string, Sink>();
const emulators = new Map<number, Promise<Emulator>>();
/** Terminals whose shell was started (or joined) once: showing one again starts nothing. */
const started = new Set<number>();
/** Threads whose running terminals this page has looked for. */
const listed = new Set<string>();
let nextKey = 1;

export function shellsOf(threadId: string): Signal<Shell[]> {
  let found = shells.get(threadId);
  if (!found) shells.set(threadId, (found = signal([])));
  return found;
}

function update(threadId: string, key: number, change: Partial<Shell>): void {
  const list = shellsOf(threadId);
  list.value = list.value.map((s) => (s.key === key ? { ...s, ...change } : s));
}

function current(threadId: string, key: number): Shell | undefined {
  return shellsOf(threadId).value.find((s) => s.key === key);
}

function add(threadId: string, shell: Omit<Shell, "key" | "name">): Shell {
  const list = shellsOf(threadId);
  const key = nextKey++;
  const added = { ...shell, key, name: `Terminal ${key}` };
  list.value = [...list.value, added];
  return added;
}

/** A new terminal in the thread: shown at once; its shell starts once the emulator knows its size. */
export function newShell(threadId: string): Shell {
  return add(threadId, {});
}

/**
 * The running terminals of the thread this page does not show yet (it was
 * reloaded, or lost its connection), added once per thread and page.
 */
export async function findShells(threadId: string): Promise<void> {
  if (listed.has(threadId)) return;
  listed.add(threadId);
  const { processes } = await conn().request("command/exec/list", { threadId });
  const known = new Set(shellsOf(threadId).value.map((s) => s.processId));
  for (const process of processes) {
    if (!process.tty || known.has(process.processId)) continue;
    sinks.set(process.processId, new Sink());
    add(threadId, { processId: process.processId, reattached: true });
  }
}

const base64 = (bytes: Uint8Array): string => btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join(""));

/** The shell's emulator, made on first use (which loads the emulator's code). */
export function emulatorOf(threadId: string, shell: Shell): Promise<Emulator> {
  let found = emulators.get(shell.key);
  if (!found) {
    found = import("./emulator.js").then(({ createEmulator }) =>
      createEmulator(shell.name, {
        input: (bytes) => {
          const processId = current(threadId, shell.key)?.processId;
          if (processId && !current(threadId, shell.key)?.exited) {
            conn()
              .request("command/exec/write", { threadId, processId, data: base64(bytes) })
              .catch((error: unknown) => reportError(error, "Typing in the terminal"));
          }
        },
        resize: (cols, rows) => resize(threadId, shell.key, cols, rows),
      }),
    );
    emulators.set(shell.key, found);
  }
  return found;
}

function resize(threadId: string, key: number, cols: number, rows: number): void {
  const shell = current(threadId, key);
  if (!shell?.processId || shell.exited) return;
  conn()
    .request("command/exec/resize", { threadId, processId: shell.processId, cols, rows })
    .catch((error: unknown) => reportError(error, "Resizing the terminal"));
}

/** Runs the shell of a terminal on screen at the emulator's size, or joins the one found running. */
export async function startShell(threadId: string, key: number, emulator: Emulator): Promise<void> {
  const shell = current(threadId, key);
  if (!shell || started.has(key)) return;
  started.add(key);
  if (shell.processId) {
    sinks.get(shell.processId)?.attach(emulator);
    if (shell.reattached) emulator.note("Reattached: what it printed before is not shown.");
    // It may have run at another size.
    resize(threadId, key, emulator.cols, emulator.rows);
    return;
  }
  const { cols, rows } = emulator;
  let processId: string;
  try {
    ({ processId } = await conn().request("command/exec", { threadId, command: SHELL_COMMAND, tty: true, cols, rows }));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    update(threadId, key, { failed: message });
    emulator.note(`The shell did not start: ${message}`);
    return;
  }
  if (!current(threadId, key)) {
    // Closed while it started.
    void conn()
      .request("command/exec/terminate", { threadId, processId })
      .catch(() => undefined);
    return;
  }
  // The server answers before the first delta: from here on, its output reaches the emulator.
  const sink = new Sink();
  sink.attach(emulator);
  sinks.set(processId, sink);
  update(threadId, key, { processId });
  if (emulator.cols !== cols || emulator.rows !== rows) resize(threadId, key, emulator.cols, emulator.rows);
}

/** Closes a terminal: its shell and everything it started are stopped, its screen goes. */
export function closeShell(threadId: string, key: number): void {
  const shell = current(threadId, key);
  if (!shell) return;
  const list = shellsOf(threadId);
  list.value = list.value.filter((s) => s.key !== key);
  if (shell.processId && !shell.exited) {
    conn()
      .request("command/exec/terminate", { threadId, processId: shell.processId })
      .catch((error: unknown) => reportError(error, "Stopping the terminal's shell"));
  }
  if (shell.processId) sinks.delete(shell.processId);
  void emulators.get(key)?.then((emulator) => emulator.dispose());
  emulators.delete(key);
  started.delete(key);
}

/** Routes a delta to its terminal; false when it is no terminal's. */
export function shellOutput(processId: string, bytes: Uint8Array): boolean {
  const sink = sinks.get(processId);
  sink?.push(bytes);
  return sink !== undefined;
}

/** Marks a terminal's shell ended and says so on its screen. */
export function shellExited(end: Exited): void {
  const shell = shellsOf(end.threadId).value.find((s) => s.processId === end.processId);
  if (!shell) return;
  update(end.threadId, shell.key, { exited: end });
  sinks.delete(end.processId);
  void emulators.get(shell.key)?.then((emulator) => emulator.note(shellEnd(end)));
}

/** A command's end the page did not hear: the server no longer runs it. */
export function unheardEnd(threadId: string, processId: string): Exited {
  return { threadId, processId, exitCode: null, signal: null, truncated: false, unheard: true };
}

/** The terminals of `threadId` whose shell the page believes runs. */
export function runningShells(threadId: string): string[] {
  return shellsOf(threadId).value.flatMap((shell) => (shell.processId && !shell.exited ? [shell.processId] : []));
}

/** Every thread with terminals on this page, each to be listed again: after a reconnection, what runs may have changed. */
export function relistShells(): string[] {
  for (const threadId of shells.keys()) listed.delete(threadId);
  return [...shells.keys()];
}

/** A terminal's ending, in words. */
export function shellEnd(end: Exited): string {
  if (end.unheard) return "ended while the page was away";
  const how = end.exitCode !== null ? `exited with code ${end.exitCode}` : `ended by ${end.signal ?? "a signal"}`;
  return end.truncated ? `${how}, output cut at the limit` : how;
}
