import type { SessionEvent } from "@knightcode/agent/run/events";
import type { TurnController } from "@knightcode/agent/turn/controller";
import type { ServerNotificationMethod, ServerNotificationParams, ThreadStatus } from "@knightcode/app-server-protocol";
import type { ThreadCore } from "./thread-core.js";
import { derivedName } from "./thread-object.js";

export interface Broadcaster {
  /** To every connection; `seq` is the thread's number for it, when it is about a thread. */
  broadcast<M extends ServerNotificationMethod>(method: M, params: ServerNotificationParams<M>, seq?: number): void;
}

export interface ThreadActivityOptions {
  core: ThreadCore;
  turns: TurnController;
  /** Every connection hears a thread's status and name. */
  broadcaster: Broadcaster;
  closing(): boolean;
}

/**
 * What the sidebar shows of a loaded thread and what decides its idle
 * unload: its status (from the owner of its turns, or the failure that
 * stopped it), its name, and when anything last came or went.
 */
export class ThreadActivity {
  private statusValue: ThreadStatus = { type: "idle" };
  /** Set once the transcript is lost (ownership, disk): the status shows it until the thread closes. */
  private failureValue: string | undefined;
  /** When a subscriber or a turn last came or went: the idle clock starts there. */
  private lastActivity = Date.now();
  /** Requests working on the thread (opening, resuming): it is not idle while any does. */
  private holds = 0;
  private nameValue: string;
  private explicitName: boolean;

  constructor(private readonly options: ThreadActivityOptions) {
    const state = options.core.file.summary();
    this.explicitName = state.name !== undefined;
    this.nameValue = state.name ?? derivedName(state.firstUserText);
  }

  get status(): ThreadStatus {
    return this.statusValue;
  }

  get failure(): string | undefined {
    return this.failureValue;
  }

  get name(): string {
    return this.nameValue;
  }

  /** A subscriber or a turn came or went. */
  touch(): void {
    this.lastActivity = Date.now();
  }

  /** Keeps the thread from unloading until the returned release is called (once). */
  hold(): () => void {
    this.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
      this.touch();
    };
  }

  /** Since when nobody watches and nothing runs or waits; undefined while anything does. */
  idleSince(): number | undefined {
    const { core, turns } = this.options;
    if (this.holds > 0 || core.hasSubscribers || turns.busy || turns.hasQueued) return undefined;
    return this.lastActivity;
  }

  failed(message: string): void {
    this.failureValue = message;
  }

  /** The status as the owner of the turns and a failure say it is; every connection hears a change. */
  refresh(): void {
    if (this.options.closing() && !this.failureValue) return;
    const { active, waitingOn } = this.options.turns.activity();
    const status: ThreadStatus = this.failureValue
      ? { type: "systemError", message: this.failureValue }
      : active
        ? { type: "active", waitingOn }
        : { type: "idle" };
    if (JSON.stringify(status) === JSON.stringify(this.statusValue)) return;
    this.statusValue = status;
    this.options.broadcaster.broadcast("thread/status/changed", { threadId: this.options.core.id, status });
  }

  setName(name: string): void {
    this.options.core.writer.append({ type: "thread_name", name });
    this.explicitName = true;
    this.updateName(name);
  }

  /** A thread nobody named takes its first message's first line. */
  onSessionEvent(event: SessionEvent): void {
    if (event.type !== "message_end" || this.explicitName || this.nameValue !== "" || event.message.role !== "user") return;
    this.updateName(derivedName(this.options.core.file.summary().firstUserText));
  }

  private updateName(name: string): void {
    if (name === this.nameValue) return;
    this.nameValue = name;
    this.options.broadcaster.broadcast("thread/name/updated", { threadId: this.options.core.id, name });
  }
}
