import type { ImageContent } from "@mariozechner/pi-ai";
import type {
  AskUserAnswers,
  AskUserQuestion,
  BeforeToolCall,
  CallClassification,
  ExtensionMessageInput,
  ReviewComment,
  SessionEvent,
  SessionFile,
  StartMeta,
  StartOutcome,
  ThreadRuntime,
  TurnController,
  TokenUsage,
  ToolCallInfo,
  Warning,
  WorkspaceState,
} from "@knightcode/agent";
import { SessionFileError, boundErrorMessage, threadFault, threadPlace, workspaceView } from "@knightcode/agent";
import type {
  ApprovalMode,
  ServerNotificationMethod,
  ServerNotificationParams,
  Thread,
  ThreadStatus,
  Turn,
} from "@knightcode/app-server-protocol";
import type { Logger } from "../log.js";
import type { Connection } from "../rpc/connection.js";
import { ApprovalGate } from "../approvals/gate.js";
import { Asker } from "../asking/asker.js";
import { interpretUserInput, questionsForWire } from "../ui/dialogs.js";
import { DELTAS } from "../rpc/outbox.js";
import type { PayloadSink } from "../payloads/store.js";
import { itemForWire } from "../payloads/refs.js";
import { TurnNotifier } from "../turns/notifier.js";
import { sandboxWarning } from "./sandbox-warning.js";
import { TurnChanges } from "../workspace/diff-turn-changes.js";
import type { ItemSink } from "../turns/live-items.js";
import type { UiBridge } from "../ui/bridge.js";
import { derivedName, isoTime, validApprovalMode } from "./thread-object.js";

const PLAN_APPROVE = "Approve";
const PLAN_REVISE = "Revise";

export interface Broadcaster {
  broadcast<M extends ServerNotificationMethod>(method: M, params: ServerNotificationParams<M>): void;
}

export interface LoadedThreadOptions {
  file: SessionFile;
  runtime: ThreadRuntime;
  ui: UiBridge;
  warnings: Warning[];
  broadcaster: Broadcaster;
  log: Logger;
  defaultApprovalMode: ApprovalMode;
  /** The thread can no longer write its file: the manager closes it. */
  onFatal(thread: LoadedThread, error: Error): void;
  payloads(): PayloadSink;
  /** A turn started: its worktree counts as used. */
  onTurnStarted?(thread: LoadedThread): void;
  /** The server's environment, for the git commands of its working-tree snapshots. */
  env?: NodeJS.ProcessEnv;
}

/**
 * A thread loaded in this process: its runtime, its subscribers, the owner
 * of its running turn and its approval gate. Thread-level session events
 * (usage, retries, names, failures) become notifications here; the turn's
 * own go through its owner. Every listener it registers on something that
 * outlives it is undone when it closes.
 */
export class LoadedThread {
  readonly id: string;
  readonly file: SessionFile;
  /** Where the thread runs, as its transcript said when it loaded: a move appends a workspace entry and loads it again. */
  readonly place: WorkspaceState;
  readonly runtime: ThreadRuntime;
  readonly ui: UiBridge;
  readonly loadWarnings: Warning[];
  readonly log: Logger;
  /** The one owner of the running turn, its queues and waits (the runtime's). */
  readonly turns: TurnController;
  /** What the turns report, as notifications; the running turn as the wire shows it. */
  private readonly notifier: TurnNotifier;
  readonly gate: ApprovalGate;
  /** Puts approvals, ask_user's questions and dialogs to one subscriber at a time. */
  readonly asker: Asker;
  /** What each turn changed in the thread's git working tree. */
  readonly changes: TurnChanges;
  /** Each subscriber, with the disposer of the close listener it holds on that connection. */
  private readonly subscribers = new Map<Connection, () => void>();
  private statusValue: ThreadStatus = { type: "idle" };
  /** Set once the transcript is lost (ownership, disk): the status shows it until the thread closes. */
  private failure: string | undefined;
  /** When a subscriber or a turn last came or went: the idle clock starts there. */
  private lastActivity = Date.now();
  /** Requests working on the thread (opening, resuming): it is not idle while any does. */
  private holds = 0;
  private approval: ApprovalMode;
  private plan: boolean;
  private nameValue: string;
  private explicitName = false;
  private closing: Promise<void> | undefined;
  /** A session-replacing command began: no second one may. */
  private replacing = false;
  private readonly stopListening: () => void;
  /** The connection that most recently started work here: approvals ask it first. */
  lastInitiator: Connection | undefined;

  constructor(private readonly options: LoadedThreadOptions) {
    this.file = options.file;
    this.id = options.file.header.id;
    this.runtime = options.runtime;
    this.ui = options.ui;
    this.loadWarnings = options.warnings;
    this.log = options.log;
    const state = this.file.summary();
    this.place = threadPlace(this.file.header, state);
    this.approval = validApprovalMode(state.approvalMode ?? options.defaultApprovalMode);
    this.plan = state.planMode === true;
    this.runtime.setPlanMode(this.plan);
    this.explicitName = state.name !== undefined;
    this.nameValue = state.name ?? derivedName(state.firstUserText);
    this.asker = new Asker({
      subscribers: () => [...this.subscribers.keys()],
      lastInitiator: () => this.lastInitiator,
      waitOn: (kind) => this.turns.waitOn(kind),
    });
    this.gate = new ApprovalGate({
      threadId: this.id,
      cwd: this.place.cwd,
      approvalMode: () => this.approval,
      planMode: () => this.plan,
      isBuiltinTool: (name) => this.runtime.isBuiltinTool(name),
      controls: {
        agentDir: this.runtime.agentDir,
        codePathOf: (path) => this.runtime.codePathOf(path),
        ...(this.place.mode === "worktree" && this.place.path !== undefined ? { ownWorktree: this.place.path } : {}),
      },
      secretFiles: this.runtime.secretFiles,
      turnId: () => this.turns.runningTurnId,
      asker: this.asker,
      record: (entry) => this.runtime.session.appendSafely(entry),
      classify: (call, signal) => this.classify(call, signal),
      confirm: (title, message, signal) => this.ui.confirm(title, message, signal ? { signal } : undefined),
      interruptTurn: () => this.turns.interrupt(),
      payloads: () => options.payloads(),
      sandboxNetworkOff: async () => {
        const state = await this.runtime.sandbox?.state();
        return state?.wanted === true && state.available && !state.network;
      },
    });
    this.changes = new TurnChanges({
      threadId: this.id,
      cwd: this.file.header.cwd,
      env: options.env ?? process.env,
      log: options.log,
      record: (entry) => this.runtime.session.appendSafely(entry),
      changed: (turnId, files) => this.send("turn/diff/updated", { threadId: this.id, turnId, files }),
    });
    this.turns = this.runtime.turns;
    this.notifier = new TurnNotifier({
      turns: this.turns,
      session: this.runtime.session,
      out: {
        started: (turn, requestId) => this.send("turn/started", { threadId: this.id, turn, ...(requestId ? { requestId } : {}) }),
        completed: (turn) => this.turnCompleted(turn),
        queueChanged: (queue) => this.send("turn/queue/updated", { threadId: this.id, ...queue }),
        dropped: (message, clientMessageId) =>
          this.send("error", { message, kind: "queuedInputDropped", threadId: this.id, ...(clientMessageId ? { clientMessageId } : {}) }),
      },
      activityChanged: () => this.refreshStatus(),
      itemSink: (turnId) => this.itemSink(turnId),
      isDeclined: (callId) => this.gate.declined.has(callId),
      turnBegan: (turnId) => this.changes.began(turnId),
      turnSettling: (turnId) => this.changes.settled(turnId),
    });
    this.stopListening = this.runtime.session.subscribe((event) => this.onSessionEvent(event));
  }

  /**
   * Where the thread's tool calls are admitted: after the turn's first
   * working-tree snapshot (so no edit lands before it), then the approval
   * gate.
   */
  readonly checkToolCall: BeforeToolCall = async (call, signal) => {
    await this.changes.ready();
    return this.gate.check(call, signal);
  };

  /** The classifier gate's verdict; a classifier that could not answer leaves one line in the log. */
  private async classify(call: ToolCallInfo, signal: AbortSignal | undefined): Promise<CallClassification | undefined> {
    const judged = await this.runtime.classifyToolCall(call, signal);
    if (judged?.verdict === "unjudged" && !signal?.aborted) this.log.warn(`classifier gate: ${call.toolName} call ${call.toolCallId} needs confirmation: ${judged.reason}`);
    return judged;
  }

  /** The folder the thread runs in: its tools' working folder, in its checkout or its worktree. */
  get cwd(): string {
    return this.place.cwd;
  }

  get status(): ThreadStatus {
    return this.statusValue;
  }

  get isClosed(): boolean {
    return this.closing !== undefined;
  }

  get name(): string {
    return this.nameValue;
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

  /** Whether the user let this call (or every call of this load) use the network in the sandbox. */
  networkGranted(callId: string | undefined): boolean {
    return this.gate.networkGranted(callId);
  }

  get approvalMode(): ApprovalMode {
    return this.approval;
  }

  /** A start, a turn, its settlement or an exclusive change holds the thread. */
  get isRunning(): boolean {
    return this.turns.busy;
  }

  get usage(): TokenUsage {
    return this.runtime.session.usage;
  }

  get hasSubscribers(): boolean {
    return this.subscribers.size > 0;
  }

  /** Keeps the thread from unloading until the returned release is called (once). */
  hold(): () => void {
    this.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
      this.lastActivity = Date.now();
    };
  }

  /** Since when nobody watches and nothing runs or waits; undefined while anything does. */
  idleSince(): number | undefined {
    if (this.closing || this.holds > 0 || this.subscribers.size > 0 || this.turns.busy || this.turns.hasQueued) return undefined;
    return this.lastActivity;
  }

  thread(): Thread {
    const session = this.runtime.session;
    const header = this.file.header;
    const model = session.model;
    return {
      id: this.id,
      name: this.nameValue,
      cwd: this.place.cwd,
      createdAt: header.createdAt,
      updatedAt: isoTime(this.file.updatedAt),
      ...(header.forkedFromId ? { forkedFromId: header.forkedFromId } : {}),
      sessionFile: this.file.path,
      status: this.statusValue,
      workspace: workspaceView(this.place),
      model: model ? { provider: model.provider, id: model.id } : null,
      thinkingLevel: model && !model.reasoning ? "off" : session.thinkingLevel,
      approvalMode: this.approval,
      planMode: this.plan,
    };
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
  startTurn(input: { text: string; images: ImageContent[]; comments?: ReviewComment[] } & StartMeta, connection: Connection): Promise<StartOutcome> {
    this.lastInitiator = connection;
    return this.turns.start(input, () => this.subscribe(connection));
  }

  /** The connections subscribed now. */
  subscriberConnections(): Connection[] {
    return [...this.subscribers.keys()];
  }

  subscribe(connection: Connection): void {
    if (this.closing || connection.state === "closed" || this.subscribers.has(connection)) return;
    this.subscribers.set(
      connection,
      connection.onClose(() => this.unsubscribe(connection)),
    );
    this.lastActivity = Date.now();
  }

  /** A client resumed the thread: it subscribes, and an approval waiting on another client moves to it. */
  resumedBy(connection: Connection): void {
    this.subscribe(connection);
    this.asker.subscriberResumed(connection);
  }

  unsubscribe(connection: Connection): boolean {
    const stopWatching = this.subscribers.get(connection);
    if (!stopWatching) return false;
    stopWatching();
    this.subscribers.delete(connection);
    if (this.lastInitiator === connection) this.lastInitiator = undefined;
    this.lastActivity = Date.now();
    this.asker.subscriberLeft(connection);
    return true;
  }

  /**
   * A notification to this thread's subscribers. A queue update still
   * pending goes first, so nothing overtakes it; deltas, which never depend
   * on the queue, do not wait for it.
   */
  send<M extends ServerNotificationMethod>(method: M, params: ServerNotificationParams<M>): void {
    if (method !== "turn/queue/updated" && !DELTAS.has(method)) this.notifier.flushQueueUpdate();
    for (const connection of this.subscribers.keys()) connection.notify(method, params);
  }

  private itemSink(turnId: string): ItemSink {
    const payloads = this.options.payloads();
    const base = { threadId: this.id, turnId };
    return {
      started: (item) => this.send("item/started", { ...base, item: itemForWire(item, payloads) }),
      completed: (item) => this.send("item/completed", { ...base, item: itemForWire(item, payloads) }),
      removed: (itemId) => this.send("item/removed", { ...base, itemId }),
      agentDelta: (itemId, delta) => this.send("item/agentMessage/delta", { ...base, itemId, delta }),
      reasoningDelta: (itemId, delta) => this.send("item/reasoning/delta", { ...base, itemId, delta }),
    };
  }

  private turnCompleted(turn: Turn): void {
    this.lastActivity = Date.now();
    this.gate.forgetDeclined();
    this.send("turn/completed", { threadId: this.id, turn });
    this.options.broadcaster.broadcast("thread/turn/completed", { threadId: this.id, turn });
  }

  /** The status as the owner of the turn and a failure say it is; every connection hears a change. */
  private refreshStatus(): void {
    if (this.closing && !this.failure) return;
    const { active, waitingOn } = this.turns.activity();
    const status: ThreadStatus = this.failure
      ? { type: "systemError", message: this.failure }
      : active
        ? { type: "active", waitingOn }
        : { type: "idle" };
    if (JSON.stringify(status) === JSON.stringify(this.statusValue)) return;
    this.statusValue = status;
    this.options.broadcaster.broadcast("thread/status/changed", { threadId: this.id, status });
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

  /** A session-replacing command starts; refused when one already did. */
  beginReplacement(): void {
    if (this.replacing) throw new Error(`thread ${this.id} is already being replaced`);
    this.replacing = true;
  }

  /** The replacement failed before anything moved: another may try. */
  replacementFailed(): void {
    this.replacing = false;
  }

  /**
   * The thread was replaced by `to`: each subscriber hears thread/replaced
   * (with what it needs to show `to` at once) and is moved to `to` in the
   * same step, so nothing of `to` reaches it first. The extension contexts
   * of this thread go stale.
   */
  handOver(to: LoadedThread): void {
    this.notifier.flushQueueUpdate();
    const replaced = { threadId: this.id, thread: to.thread(), warnings: to.loadWarnings, ui: to.ui.snapshot() };
    to.lastInitiator ??= this.lastInitiator;
    for (const connection of [...this.subscribers.keys()]) {
      connection.notify("thread/replaced", replaced);
      to.subscribe(connection);
      this.unsubscribe(connection);
    }
    this.runtime.host.retire(to.id);
  }

  /** A warning after load (an extension failed): to subscribers. */
  warn(warning: Warning): void {
    this.send("warning", { threadId: this.id, warning });
  }

  /**
   * ask_user's questions, all at once, to one subscriber at a time. `{}`
   * (or nobody left to ask) dismisses them and stops the turn, as Escape
   * does; an answer that is not one the questions allow fails the call and
   * says why, and the turn goes on.
   */
  async askUser(questions: AskUserQuestion[], call: { toolCallId: string; signal?: AbortSignal }): Promise<AskUserAnswers | undefined> {
    const outcome = await this.asker.ask(
      "item/toolCall/requestUserInput",
      { threadId: this.id, turnId: this.turns.runningTurnId ?? "", itemId: call.toolCallId, questions: questionsForWire(questions) },
      { kind: "dialog", ...(call.signal ? { signal: call.signal } : {}) },
    );
    if (outcome.kind === "refused") throw new Error("The user's client could not show the questions (it answered with an error).");
    const reply = outcome.kind === "answered" ? interpretUserInput(outcome.result, questions) : ({ kind: "dismissed" } as const);
    if (reply.kind === "invalid") throw new Error(`The user's answer was refused: ${reply.reason}. Ask again if you still need it.`);
    if (reply.kind === "answers") return reply.answers;
    if (!call.signal?.aborted) this.turns.interrupt();
    return undefined;
  }

  /** An extension's sendMessage: the owner of the turn delivers it. */
  deliverExtensionMessage(message: ExtensionMessageInput, options: { triggerTurn?: boolean; deliverAs?: "steer" | "followUp" }): void {
    this.turns.deliver(message, options);
  }

  setName(name: string): void {
    this.runtime.session.appendSafely({ type: "thread_name", name });
    this.explicitName = true;
    this.updateName(name);
  }

  private updateName(name: string): void {
    if (name === this.nameValue) return;
    this.nameValue = name;
    this.options.broadcaster.broadcast("thread/name/updated", { threadId: this.id, name });
  }

  setApprovalMode(mode: ApprovalMode): void {
    this.runtime.session.appendSafely({ type: "approval_mode", mode });
    this.approval = mode;
  }

  get planMode(): boolean {
    return this.plan;
  }

  /**
   * Plan mode on or off, at once (the gate reads it for each call) and on
   * the branch, so a resume finds it; the model's instructions follow from
   * the next turn. Subscribers hear a change.
   */
  setPlanMode(on: boolean): void {
    if (on === this.plan) return;
    this.runtime.session.appendSafely({ type: "plan_mode", on });
    this.plan = on;
    this.runtime.setPlanMode(on);
    this.send("thread/planMode/updated", { threadId: this.id, planMode: on });
  }

  /**
   * submit_plan's review: a select of Approve or Revise, and for Revise an
   * editor for what should change. Approval ends plan mode, so the plan is
   * carried out under the thread's approval mode. A review nobody answers
   * (dismissed, withdrawn, nobody left) stops the turn, as Escape does,
   * rather than have the model submit again and again.
   */
  async reviewPlan(plan: string, signal: AbortSignal | undefined): Promise<{ approved: boolean; feedback?: string }> {
    const opts = signal ? { signal } : {};
    const choice = await this.ui.select("Review the plan", [PLAN_APPROVE, PLAN_REVISE], opts);
    if (choice === PLAN_APPROVE) {
      this.setPlanMode(false);
      return { approved: true };
    }
    if (choice === PLAN_REVISE) {
      const feedback = await this.ui.editor("What should change in the plan?", "", opts);
      if (feedback !== undefined) return feedback.trim() === "" ? { approved: false } : { approved: false, feedback };
    }
    if (!signal?.aborted) this.turns.interrupt();
    return { approved: false };
  }

  private onSessionEvent(event: SessionEvent): void {
    switch (event.type) {
      case "usage":
        this.send("thread/tokenUsage/updated", { threadId: this.id, ...(event.turnId ? { turnId: event.turnId } : {}), usage: event.usage });
        return;
      case "retry":
        this.send("turn/retrying", {
          threadId: this.id,
          turnId: event.turnId,
          attempt: event.attempt,
          maxAttempts: event.maxAttempts,
          delayMs: event.delayMs,
          error: { message: boundErrorMessage(event.error.message), kind: event.error.kind },
        });
        return;
      case "fatal":
        this.fail(event.error);
        return;
      case "turn_start":
        this.options.onTurnStarted?.(this);
        return;
      case "message_end":
        if (!this.explicitName && this.nameValue === "" && event.message.role === "user") {
          this.updateName(derivedName(this.file.summary().firstUserText));
        }
        return;
      default:
        return;
    }
  }

  /** Whether the thread lost its transcript to another owner; if so it fails (and the manager closes it). */
  lostOwnership(): boolean {
    if (this.closing) return false;
    let reason: string | undefined;
    try {
      reason = this.file.probeOwnership();
    } catch (error) {
      reason = (error as Error).message;
    }
    if (reason === undefined) return false;
    this.fail(new SessionFileError("ownershipLost", `${this.file.path}: ${reason}`, { path: this.file.path }));
    return true;
  }

  /** The systemError a failed thread shows, if it failed. */
  get failureMessage(): string | undefined {
    return this.failure;
  }

  /**
   * Ownership or the disk failed: the running turn fails with the same words
   * the thread's systemError shows, everyone hears it, and the manager closes
   * the thread (dropping its queue, withdrawing its requests, killing its
   * processes).
   */
  private fail(error: Error): void {
    if (this.closing || this.failure) return;
    const fault = threadFault(error);
    this.failure = fault.message;
    this.turns.fail({ message: fault.message, kind: "other" });
    this.send("error", { message: this.failure, kind: "threadFailed", threadId: this.id });
    this.refreshStatus();
    this.options.onFatal(this, fault);
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
      this.notifier.flushQueueUpdate();
      for (const stopWatching of this.subscribers.values()) stopWatching();
      this.subscribers.clear();
      this.lastInitiator = undefined;
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
