import { signal, type Signal } from "@preact/signals";
import { AppServerError } from "@knightcode/app-server-client/browser";
import { conn } from "../../connection/connection.js";
import { reportError } from "../../state/toasts.js";
import { decodeBase64 } from "../transcript/payload.js";
import { type Exited, relistShells, runningShells, shellExited, shellOutput, unheardEnd } from "./shells.js";

/** One command this page ran in a thread, with what it printed. */
export interface TerminalSession {
  processId: string;
  command: string;
  /** Set once it ended. */
  exited?: Exited;
}

/** What the page keeps of one command's output: its last characters. */
const KEPT_CHARS = 256 * 1024;

/**
 * CSI and OSC sequences (colours, cursor moves, titles): a panel that shows
 * text, not a terminal, leaves them out rather than print them.
 */
const ESCAPES = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-_]/g;

/** One command's output as text: bytes decoded as they come, a character split between two deltas kept whole. */
class Output {
  private readonly decoder = new TextDecoder();
  readonly text = signal("");

  push(chunk: Uint8Array): void {
    const next = this.text.value + this.decoder.decode(chunk, { stream: true });
    this.text.value = (next.length > KEPT_CHARS ? next.slice(-KEPT_CHARS) : next).replace(ESCAPES, "");
  }
}

const sessions = new Map<string, Signal<TerminalSession[]>>();
const outputs = new Map<string, Output>();
/** Threads whose terminal panel is open. */
export const openPanels = signal<ReadonlySet<string>>(new Set());

export function sessionsOf(threadId: string): Signal<TerminalSession[]> {
  let found = sessions.get(threadId);
  if (!found) sessions.set(threadId, (found = signal([])));
  return found;
}

/** The output of a command this page runs, as text; empty for any other. */
export function outputOf(processId: string): Signal<string> {
  return (outputs.get(processId) ?? new Output()).text;
}

export function setPanelOpen(threadId: string, open: boolean): void {
  const next = new Set(openPanels.value);
  if (open) next.add(threadId);
  else next.delete(threadId);
  openPanels.value = next;
}

/** Runs a `!` line in the thread's folder, without a terminal, and opens the panel on it. */
export async function runCommand(threadId: string, command: string): Promise<string> {
  const { processId } = await conn().request("command/exec", { threadId, command });
  // The server answers before the first delta: from here on, the command's output is kept.
  outputs.set(processId, new Output());
  const list = sessionsOf(threadId);
  list.value = [...list.value, { processId, command }];
  setPanelOpen(threadId, true);
  return processId;
}

export function terminate(threadId: string, processId: string): Promise<unknown> {
  return conn().request("command/exec/terminate", { threadId, processId });
}

/** A session the page no longer shows: its output goes too. */
export function closeSession(threadId: string, processId: string): void {
  const list = sessionsOf(threadId);
  list.value = list.value.filter((s) => s.processId !== processId);
  outputs.delete(processId);
}

function ended(end: Exited): void {
  shellExited(end);
  const list = sessionsOf(end.threadId);
  list.value = list.value.map((s) => (s.processId === end.processId ? { ...s, exited: end } : s));
}

/**
 * After a reconnection: a command the page believes runs and the server
 * no longer runs (it restarted, or unloaded the thread meanwhile) ended
 * while no end could reach the page; it says so instead of "running".
 */
async function reconcile(threadId: string): Promise<void> {
  const believed = [...sessionsOf(threadId).value.flatMap((s) => (s.exited ? [] : [s.processId])), ...runningShells(threadId)];
  if (believed.length === 0) return;
  let running: Set<string>;
  try {
    running = new Set((await conn().request("command/exec/list", { threadId })).processes.map((p) => p.processId));
  } catch (error) {
    // A thread the server does not hold runs no command.
    if (!(error instanceof AppServerError && error.code === "threadNotFound")) throw error;
    running = new Set();
  }
  for (const processId of believed) if (!running.has(processId)) ended(unheardEnd(threadId, processId));
}

/** Output and ends of every command this page follows, from the thread subscriptions it has. */
export function watchTerminals(): () => void {
  const c = conn();
  const stops = [
    // Another client's commands are not this page's to keep.
    c.on("command/exec/outputDelta", ({ processId, data }) => {
      const bytes = decodeBase64(data);
      if (!shellOutput(processId, bytes)) outputs.get(processId)?.push(bytes);
    }),
    c.on("command/exec/exited", ended),
    c.onReconnect(() => {
      for (const threadId of new Set([...sessions.keys(), ...relistShells()])) {
        void reconcile(threadId).catch((error: unknown) => reportError(error, "Looking for the thread's commands"));
      }
    }),
  ];
  return () => {
    for (const stop of stops) stop();
  };
}
