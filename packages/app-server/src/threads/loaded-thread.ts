import type { SessionEvent } from "@knightcode/agent/run/events";
import type { SessionFile } from "@knightcode/store/session/session-file";
import type { StartMeta, StartOutcome } from "@knightcode/agent/turn/run-record";
import type { ThreadRuntime } from "@knightcode/agent/thread/load-runtime";
import type { TokenUsage } from "@knightcode/agent/run/usage";
import type { TurnController, TurnStart } from "@knightcode/agent/turn/controller";
import type { Warning } from "@knightcode/system/warning";
import type { WorkspaceState } from "@knightcode/store/session/format";
import { threadFault } from "@knightcode/store/session/fault";
import type { ApprovalMode, ServerNotificationMethod, ServerNotificationParams, Thread, ThreadStatus, Turn } from "@knightcode/app-server-protocol";
import type { Logger } from "../host/log.js";
import type { Connection } from "../rpc/connection.js";
import type { ApprovalGate } from "../approvals/gate.js";
import { threadGate } from "../approvals/thread-gate.js";
import type { NetworkGrants } from "../approvals/network-grants.js";
import type { ThreadModes } from "../approvals/thread-modes.js";
import type { Asker } from "../asking/asker.js";
import type { PayloadSink } from "../payloads/store.js";
import { TurnNotifier } from "../turns/notifier.js";
import { sandboxWarning } from "./sandbox-warning.js";
import { TurnChanges } from "../turns/turn-changes.js";
import type { UiBridge } from "../ui/bridge.js";
import { ThreadActivity, type Broadcaster } from "./thread-activity.js";
import type { ThreadCore } from "./thread-core.js";
import { threadObject } from "./thread-object.js";
import { withSubagentUsage } from "./subagent-usage.js";

export type { Broadcaster };

/** What a thread is made of by the time its runtime has loaded (see openThread). */
export interface LoadedThreadParts {
  core: ThreadCore;
  runtime: ThreadRuntime;
  ui: UiBridge;
  modes: ThreadModes;
  network: NetworkGrants;
  broadcaster: Broadcaster;
  /** The thread can no longer write its file: the manager closes it. */
  onFatal(thread: LoadedThread, error: Error): void;
  payloads(): PayloadSink;
  /** A turn started: its worktree counts as used. */
  onTurnStarted?(thread: LoadedThread): void;
  /** The server's environment, for the git commands of its working-tree snapshots. */
  env?: NodeJS.ProcessEnv;
  /** Its sub-agents' latest usage by thread id, as this process follows them (fresher than what the transcript reports). */
  liveSubagentUsage?(): ReadonlyMap<string, TokenUsage> | undefined;
}

/**
 * A thread loaded in this process, put together from parts that exist
 * before it: its core (file, subscribers, asker), its runtime and the
 * owner of its turns, its modes and UI; it adds what is built on the
 * runtime (the approval gate, the working-tree snapshots, the turn
 * notifications), and answers for its status and its unloading. Every
 * listener it registers on something that outlives it is undone when it
 * closes.
 */
export class LoadedThread {
  readonly id: string;
  readonly runtime: ThreadRuntime;
  readonly ui: UiBridge;
  readonly turns: TurnController;
  readonly gate: ApprovalGate;
  /** What each turn changed in the thread's git working tree. */
  readonly changes: TurnChanges;
  /** What the thread is before anything runs on it: file, writer, subscribers, asker. */
  readonly core: ThreadCore;
  private readonly modes: ThreadModes;
  private readonly notifier: TurnNotifier;
  private readonly activity: ThreadActivity;
  private closing: Promise<void> | undefined;
  private readonly stopListening: () => void;

  constructor(private readonly parts: LoadedThreadParts) {
    const { core, runtime, modes } = parts;
    this.core = core;
    this.id = core.id;
    this.runtime = runtime;
    this.ui = parts.ui;
    this.modes = modes;
    this.turns = runtime.turns;
    this.activity = new ThreadActivity({ core, turns: this.turns, broadcaster: parts.broadcaster, closing: () => this.closing !== undefined });
    this.gate = threadGate({
      threadId: this.id,
      place: core.place,
      runtime,
      modes,
      network: parts.network,
      asker: core.asker,
      turns: this.turns,
      log: core.log,
      record: (entry) => core.writer.append(entry),
      confirm: (title, message, signal, onUnattended) =>
        this.ui.confirm(title, message, { ...(signal ? { signal } : {}), ...(onUnattended ? { onUnattended } : {}) }),
      payloads: parts.payloads,
    });
    this.changes = new TurnChanges({
      threadId: this.id,
      cwd: core.file.header.cwd,
      env: parts.env ?? process.env,
      log: core.log,
      record: (entry) => core.writer.append(entry),
      changed: (turnId, files) => this.send("turn/diff/updated", { threadId: this.id, turnId, files }),
    });
    // The turn's first working-tree snapshot comes before any edit, then the approval gate.
    runtime.useApprovalGate(async (call, signal) => {
      await this.changes.ready();
      return this.gate.check(call, signal);
    });
    const stopPlan = modes.onPlanChange(() => runtime.applyToolSelection());
    const stopSession = runtime.session.subscribe((event) => this.onSessionEvent(event));
    this.stopListening = () => {
      stopPlan();
      stopSession();
    };
    this.notifier = new TurnNotifier({
      turns: this.turns,
      out: {
        started: (turn, requestId) => this.send("turn/started", { threadId: this.id, turn, ...(requestId ? { requestId } : {}) }),
        completed: (turn) => this.turnCompleted(turn),
        queueChanged: () => core.queueChanged(),
        dropped: (message, clientMessageId) =>
          this.send("error", { message, kind: "queuedInputDropped", threadId: this.id, ...(clientMessageId ? { clientMessageId } : {}) }),
      },
      activityChanged: () => this.activity.refresh(),
      payloads: parts.payloads,
      send: (method, params) => this.send(method, params),
      isDeclined: (callId) => this.gate.declined.has(callId),
      // The turn's start entry was just written: the transcript's time is the start by the files' own clock.
      turnBegan: (turnId) => this.changes.began(turnId, this.core.file.lastWrittenAt()),
      turnSettling: (turnId) => this.changes.settled(turnId),
      usage: this.withSubagents,
    });
  }

  get file(): SessionFile {
    return this.core.file;
  }

  /** Where the thread runs, as its transcript said when it loaded: a move appends a workspace entry and loads it again. */
  get place(): WorkspaceState {
    return this.core.place;
  }

  /** The folder the thread runs in: its tools' working folder, in its checkout or its worktree. */
  get cwd(): string {
    return this.core.place.cwd;
  }

  get log(): Logger {
    return this.core.log;
  }

  /** Puts approvals, ask_user's questions and dialogs to one subscriber at a time. */
  get asker(): Asker {
    return this.core.asker;
  }

  get loadWarnings(): Warning[] {
    return this.core.loadWarnings;
  }

  /** The connection that most recently started work here: approvals ask it first. */
  get lastInitiator(): Connection | undefined {
    return this.core.lastInitiator;
  }

  set lastInitiator(connection: Connection | undefined) {
    this.core.lastInitiator = connection;
  }

  get status(): ThreadStatus {
    return this.activity.status;
  }

  get isClosed(): boolean {
    return this.closing !== undefined;
  }

  get name(): string {
    return this.activity.name;
  }

  /**
   * Adds to the load warnings, once, that the sandbox this thread wants
   * cannot run here (see sandboxWarning); the answer that opened the
   * thread, and every later resume, carries it.
   */
  async noteSandbox(): Promise<void> {
    const warning = await sandboxWarning(this.runtime);
    if (warning && !this.loadWarnings.some((known) => known.message === warning.message)) this.loadWarnings.push(warning);
  }

  get approvalMode(): ApprovalMode {
    return this.modes.approvalMode;
  }

  /** A start, a turn, its settlement or an exclusive change holds the thread. */
  get isRunning(): boolean {
    return this.turns.busy;
  }

  /** Its own usage and, once its model started sub-agents, theirs separately and summed. */
  get usage(): TokenUsage {
    return this.withSubagents(this.runtime.session.usage);
  }

  private readonly withSubagents = (own: TokenUsage) => withSubagentUsage(own, this.file.summary().subagents, this.parts.liveSubagentUsage?.());

  get hasSubscribers(): boolean {
    return this.core.hasSubscribers;
  }

  /** Keeps the thread from unloading until the returned release is called (once). */
  hold(): () => void {
    return this.activity.hold();
  }

  /** Since when nobody watches and nothing runs or waits; undefined while anything does. */
  idleSince(): number | undefined {
    if (this.closing) return undefined;
    return this.activity.idleSince();
  }

  thread(): Thread {
    const session = this.runtime.session;
    return threadObject({
      id: this.id,
      name: this.name,
      file: this.file,
      place: this.place,
      status: this.status,
      model: session.model,
      thinkingLevel: session.thinkingLevel,
      modes: this.modes,
    });
  }

  /** The running turn as it stands: for thread/resume's `runningTurn`. */
  runningTurn(): Turn | undefined {
    return this.notifier.runningTurn();
  }

  /** The running turn as thread/resume sends it: large turns as a payload reference, reused while unchanged. */
  runningTurnForWire(store: PayloadSink): Turn | undefined {
    return this.notifier.runningTurnForWire(store);
  }

  /** turn/start from `connection`: it becomes the one approvals ask first. */
  startTurn(input: TurnStart & StartMeta, connection: Connection): Promise<StartOutcome> {
    this.lastInitiator = connection;
    return this.turns.start(input, () => this.subscribe(connection));
  }

  /** The connections subscribed now. */
  subscriberConnections(): Connection[] {
    return this.core.subscriberConnections();
  }

  subscribe(connection: Connection): void {
    if (this.closing) return;
    if (this.core.subscribe(connection, () => this.unsubscribe(connection))) this.activity.touch();
  }

  /** A client resumed the thread: it subscribes, and an approval waiting on another client moves to it. */
  resumedBy(connection: Connection): void {
    this.subscribe(connection);
    this.asker.subscriberResumed(connection);
  }

  unsubscribe(connection: Connection): boolean {
    if (!this.core.unsubscribe(connection)) return false;
    this.activity.touch();
    return true;
  }

  /** A notification to this thread's subscribers, after any queue update still pending. */
  send<M extends ServerNotificationMethod>(method: M, params: ServerNotificationParams<M>): void {
    this.core.send(method, params);
  }

  private turnCompleted(turn: Turn): void {
    this.activity.touch();
    this.gate.forgetDeclined();
    this.send("turn/completed", { threadId: this.id, turn });
    this.parts.broadcaster.broadcast("thread/turn/completed", { threadId: this.id, turn });
  }

  /**
   * `/reload` from `connection`, which subscribes as a turn/start would:
   * between turns only (turnInProgress during one, and no turn starts
   * until it is done). The old extensions shut down, what they showed is
   * cleared (one ui/state, a removal per widget) before the new ones load
   * and start, and the reload's warnings go to subscribers; a later resume
   * answers them as the thread's load warnings.
   */
  reload(connection: Connection): Promise<void> {
    return this.turns.exclusive(async () => {
      this.lastInitiator = connection;
      this.subscribe(connection);
      const warnings = await this.runtime.reload({ afterShutdown: () => this.ui.reset() });
      this.loadWarnings.splice(0, this.loadWarnings.length, ...warnings);
      await this.noteSandbox();
      for (const warning of warnings) this.warn(warning);
    });
  }

  /** The answer that opened the thread went out: later warnings go to subscribers and the log. */
  opened(): void {
    this.core.markOpened();
  }

  /** A warning after load (an extension failed): to subscribers. */
  warn(warning: Warning): void {
    this.core.sendWarning(warning);
  }

  setName(name: string): void {
    this.activity.setName(name);
  }

  setApprovalMode(mode: ApprovalMode): void {
    this.modes.setApprovalMode(mode);
  }

  get planMode(): boolean {
    return this.modes.planMode;
  }

  /** Plan mode on or off, at once and on the branch; the model's tools and instructions follow from the next turn. */
  setPlanMode(on: boolean): void {
    this.modes.setPlanMode(on);
  }

  private onSessionEvent(event: SessionEvent): void {
    if (event.type === "fatal") this.fail(event.error);
    else if (event.type === "turn_start") this.parts.onTurnStarted?.(this);
    else this.activity.onSessionEvent(event);
  }

  /** Whether the thread lost its transcript to another owner; if so it fails (and the manager closes it). */
  lostOwnership(): boolean {
    if (this.closing) return false;
    const lost = this.core.ownershipLost();
    if (lost) this.fail(lost);
    return lost !== undefined;
  }

  /** The systemError a failed thread shows, if it failed. */
  get failureMessage(): string | undefined {
    return this.activity.failure;
  }

  /**
   * Ownership or the disk failed: the running turn fails with the same words
   * the thread's systemError shows, everyone hears it, and the manager closes
   * the thread (dropping its queue, withdrawing its requests, killing its
   * processes).
   */
  private fail(error: Error): void {
    if (this.closing || this.activity.failure) return;
    const fault = threadFault(error);
    this.activity.failed(fault.message);
    this.turns.fail({ message: fault.message, kind: "other" });
    this.send("error", { message: fault.message, kind: "threadFailed", threadId: this.id });
    this.activity.refresh();
    this.parts.onFatal(this, fault);
  }

  /**
   * Unloads: nothing new starts, and the running turn is interrupted as
   * turn/interrupt does and given until `deadline` (at most) to write its
   * entries. Then every listener this thread holds elsewhere is undone, its
   * extensions shut down, its processes are killed and its file is closed.
   * Safe to call again.
   */
  close(reason: "unload" | "shutdown", deadline?: Promise<void>): Promise<void> {
    this.closing ??= (async () => {
      // Whatever is still asked is withdrawn at once: nobody will act on an answer.
      this.asker.close();
      const settled = this.turns.close();
      await (deadline ? Promise.race([settled, deadline]) : settled);
      this.turns.reportUnsettled();
      this.core.flushQueueUpdate();
      this.core.dropSubscribers();
      this.stopListening();
      this.notifier.dispose();
      try {
        await this.runtime.dispose(reason);
      } finally {
        this.ui.dispose();
        this.file.close();
      }
    })();
    return this.closing;
  }
}
