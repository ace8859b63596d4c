import type { SubAgentCall, SubAgentHandler, SubAgentReport, SubAgentStart } from "@knightcode/agent/tools/subagents";
import { ToolError } from "@knightcode/agent/tools/errors";
import type { SessionEvent } from "@knightcode/agent/run/events";
import type { TokenUsage } from "@knightcode/agent/run/usage";
import type { ModelThinkingLevel } from "@mariozechner/pi-ai";
import type { WorkspaceState } from "@knightcode/store/session/format";
import type { LoadedThread } from "./loaded-thread.js";
import type { ParentLink } from "./thread-core.js";

/** What the sub-agents need of the thread manager. */
export interface SubAgentHost {
  get(threadId: string): LoadedThread | undefined;
  load(threadId: string): Promise<LoadedThread>;
  /** The parent a thread's header names, read without loading it; undefined for none, or no such thread. */
  parentOf(threadId: string): Promise<string | undefined>;
  create(
    cwd: string,
    setup: (thread: LoadedThread) => Promise<void> | void,
    options: { workspace?: WorkspaceState; parent: { threadId: string; callId: string }; onlyTools?: readonly string[] },
  ): Promise<LoadedThread>;
  close(thread: LoadedThread, reason: "unload"): Promise<void>;
  findModel(ref: { provider: string; id: string }): Promise<unknown | undefined>;
  thinkingLevels(model: unknown): Promise<readonly string[]>;
  /** A worktree of its own for a sub-agent that asked for one, in the parent's project. */
  worktreeFor(parent: LoadedThread): Promise<{ projectCwd: string; workspace: WorkspaceState; abandon(): Promise<void> }>;
}

/** A sub-agent this process started or loaded for its parent's model. */
interface Child {
  thread: LoadedThread;
  parentId: string;
  name?: string;
  answer?: string;
  end?: { status: "completed" | "interrupted" | "failed"; error?: string };
  /** A turn was asked of it and has not ended yet. */
  pending: boolean;
  /** Keeps the parent loaded while this child works: an idle parent is not unloaded from under it. */
  parentHold?: () => void;
  closed: boolean;
  /** Called at each turn end. */
  readonly ended: Set<() => void>;
  stopListening(): void;
}

const textOf = (message: { role?: string; content?: unknown }): string | undefined => {
  if (message.role !== "assistant" || !Array.isArray(message.content)) return undefined;
  const parts = (message.content as Array<{ type?: string; text?: string }>).filter((part) => part.type === "text").map((part) => part.text ?? "");
  return parts.length > 0 ? parts.join("") : undefined;
};

/**
 * The sub-agents of every thread: each is a thread of its own whose
 * transcript names its parent and the parent's call. The parent's model
 * starts, messages, waits for and closes them through the sub-agent tools;
 * limits come from the parent's settings (`subagents.*`). A child gets its
 * parent's approval mode, model and thinking level unless the call chose
 * others, and never tools of its own to start sub-agents. Interrupting the
 * parent's turn interrupts its children; unloading the parent unloads them.
 */
export class SubAgents {
  private readonly children = new Map<string, Child>();
  /** Sub-agents started per parent, in this process. */
  private readonly startedBy = new Map<string, number>();
  /** Sub-agents' usage as this process saw it, by parent and child. */
  private readonly liveUsage = new Map<string, Map<string, TokenUsage>>();
  /** Starts under way in the whole server. */
  private starting = 0;
  /** Names being given by starts under way, as parent and name. */
  private readonly naming = new Set<string>();
  /** Parents whose turn ends this watches, with the undo. */
  private readonly watchedParents = new Map<string, () => void>();

  constructor(private readonly host: SubAgentHost) {}

  /**
   * What opening a thread takes of the sub-agents: a sub-agent is heard and
   * answered through its parent, and starts none of its own; any other
   * thread gets the sub-agent tools and counts its children's usage.
   */
  openingDeps(header: {
    id: string;
    parentThreadId?: string;
  }): { parent: ParentLink } | { subAgents: SubAgentHandler; liveSubagentUsage(): ReadonlyMap<string, TokenUsage> | undefined } {
    const parentId = header.parentThreadId;
    if (parentId !== undefined) return { parent: { threadId: parentId, subscribers: () => this.host.get(parentId)?.core.subscriberView() ?? [] } };
    return { subAgents: this.handlerFor(header.id), liveSubagentUsage: () => this.liveUsageOf(header.id) };
  }

  /** The handler the sub-agent tools of `parentId` use. */
  private handlerFor(parentId: string): SubAgentHandler {
    return {
      start: (spec, call) => this.start(parentId, spec, call),
      send: (agent, message) => this.send(parentId, agent, message),
      wait: (agents, options) => this.wait(parentId, agents, options),
      close: (agent) => this.closeOne(parentId, agent),
    };
  }

  /** What this process saw each sub-agent of `parentId` use, by thread id; undefined for a thread without any. */
  private liveUsageOf(parentId: string): ReadonlyMap<string, TokenUsage> | undefined {
    return this.liveUsage.get(parentId);
  }

  /** A sub-agent's usage changed: its parent's subscribers see the parent's figures with it. */
  private noteUsage(parentId: string, childId: string, usage: TokenUsage): void {
    let children = this.liveUsage.get(parentId);
    if (!children) this.liveUsage.set(parentId, (children = new Map()));
    children.set(childId, usage);
    const parent = this.host.get(parentId);
    if (parent && !parent.isClosed) parent.send("thread/tokenUsage/updated", { threadId: parentId, usage: parent.usage });
  }

  /** Sub-agents of `parentId` loaded now. */
  private childrenOf(parentId: string): LoadedThread[] {
    return [...this.children.values()].filter((child) => child.parentId === parentId && !child.closed).map((child) => child.thread);
  }

  private parent(parentId: string): LoadedThread {
    const parent = this.host.get(parentId);
    if (!parent) throw new ToolError("notAvailable", "The thread is no longer loaded.");
    return parent;
  }

  private async start(parentId: string, spec: Omit<SubAgentStart, "wait">, call: SubAgentCall): Promise<SubAgentReport> {
    const parent = this.parent(parentId);
    const limits = parent.runtime.settings.effective.subagents;
    const started = this.startedBy.get(parentId) ?? 0;
    if (started >= limits.maxPerThread)
      throw new ToolError("notAvailable", `This thread may start ${limits.maxPerThread} sub-agents (setting subagents.maxPerThread), and has.`);
    const running = this.starting + [...this.children.values()].filter((child) => this.working(child)).length;
    if (running >= limits.maxRunning)
      throw new ToolError(
        "notAvailable",
        `${running} sub-agents are working already, the most this server runs at once (setting subagents.maxRunning); wait for one first.`,
      );
    const nameKey = spec.name === undefined ? undefined : `${parentId}\u0000${spec.name}`;
    if (spec.name !== undefined && nameKey !== undefined && (this.byName(parentId, spec.name) || this.naming.has(nameKey)))
      throw new ToolError("invalidArgument", `A sub-agent is already named ${JSON.stringify(spec.name)}; give this one another name.`);
    // Counted now, before anything waits: calls made at once each see the others.
    this.startedBy.set(parentId, started + 1);
    if (nameKey) this.naming.add(nameKey);
    this.starting++;
    let thread: LoadedThread;
    let place: Awaited<ReturnType<SubAgentHost["worktreeFor"]>> | undefined;
    try {
      const choice = await this.modelChoice(parent, spec);
      place = spec.worktree ? await this.host.worktreeFor(parent) : undefined;
      const workspace = place?.workspace ?? (parent.place.mode === "worktree" ? parent.place : undefined);
      thread = await this.host.create(
        place?.projectCwd ?? parent.file.header.cwd,
        async (created) => {
          await created.runtime.choose(choice);
          // Never more than the parent may do: its approval mode and plan mode as they stand now.
          created.setApprovalMode(parent.approvalMode);
          if (parent.planMode) created.setPlanMode(true);
          if (spec.name !== undefined) created.setName(spec.name);
        },
        { parent: { threadId: parentId, callId: call.toolCallId }, ...(workspace ? { workspace } : {}), ...(spec.tools ? { onlyTools: spec.tools } : {}) },
      );
    } catch (error) {
      this.startedBy.set(parentId, (this.startedBy.get(parentId) ?? 1) - 1);
      await place?.abandon().catch(() => undefined);
      if (error instanceof ToolError) throw error;
      throw new ToolError("notAvailable", `The sub-agent could not start: ${(error as Error).message}`);
    } finally {
      if (nameKey) this.naming.delete(nameKey);
      this.starting--;
    }
    const child = this.track(thread, parentId, spec.name);
    this.watchParent(parent);
    await this.startTurn(child, spec.task);
    return this.report(child);
  }

  /** The model and thinking level a child of `parent` starts with: the parent's, unless `spec` names others. */
  async modelChoice(
    parent: LoadedThread,
    spec: Pick<SubAgentStart, "model" | "thinking">,
  ): Promise<{ model?: { provider: string; id: string }; thinkingLevel?: ModelThinkingLevel }> {
    const session = parent.runtime.session;
    let ref = session.model ? { provider: session.model.provider, id: session.model.id } : undefined;
    if (spec.model !== undefined) {
      const slash = spec.model.indexOf("/");
      if (slash <= 0 || slash === spec.model.length - 1)
        throw new ToolError("invalidArgument", `model must be provider/id, not ${JSON.stringify(spec.model)}.`);
      ref = { provider: spec.model.slice(0, slash), id: spec.model.slice(slash + 1) };
    }
    const model = ref ? await this.host.findModel(ref) : undefined;
    if (spec.model !== undefined && !model) throw new ToolError("invalidArgument", `There is no model ${spec.model}.`);
    const levels = model ? await this.host.thinkingLevels(model) : undefined;
    if (spec.thinking !== undefined && levels && !levels.includes(spec.thinking))
      throw new ToolError("invalidArgument", `${spec.model ?? "This model"} offers the thinking levels ${levels.join(", ")}.`);
    // The parent's level where the child's model offers it; else the child's model's default.
    const inherited = session.thinkingLevel !== undefined && (!levels || levels.includes(session.thinkingLevel)) ? session.thinkingLevel : undefined;
    const thinking = spec.thinking ?? inherited;
    return { ...(ref ? { model: ref } : {}), ...(thinking ? { thinkingLevel: thinking as ModelThinkingLevel } : {}) };
  }

  /**
   * A child the client asked for rather than the model (a detached review):
   * it unloads with its parent and keeps it loaded while it works, as a
   * sub-agent does. `startTurn` starts its turn.
   */
  async adopt(thread: LoadedThread, parentId: string, startTurn: () => Promise<string>): Promise<string> {
    const child = this.track(thread, parentId, undefined);
    child.pending = true;
    child.parentHold ??= this.host.get(parentId)?.hold();
    try {
      return await startTurn();
    } catch (error) {
      child.pending = false;
      this.releaseParent(child);
      throw error;
    }
  }

  /** Follows a child's turns: its last answer, how its last turn ended, and who waits for that. */
  private track(thread: LoadedThread, parentId: string, name: string | undefined): Child {
    const known = this.children.get(thread.id);
    if (known && !known.closed) return known;
    const child: Child = {
      thread,
      parentId,
      pending: false,
      closed: false,
      ended: new Set(),
      stopListening: () => undefined,
      ...(name !== undefined ? { name } : {}),
    };
    child.stopListening = thread.runtime.session.subscribe((event: SessionEvent) => {
      if (event.type === "message_end") {
        const text = textOf(event.message as { role?: string; content?: unknown });
        if (text !== undefined) child.answer = text;
      } else if (event.type === "usage") {
        this.noteUsage(parentId, thread.id, event.usage);
      } else if (event.type === "turn_end") {
        child.pending = false;
        void thread.turns.settled().then(() => this.releaseParent(child));
        child.end = {
          status: event.status === "completed" ? "completed" : event.status === "interrupted" ? "interrupted" : "failed",
          ...(event.error ? { error: event.error.message } : {}),
        };
        for (const wake of [...child.ended]) wake();
      }
    });
    this.children.set(thread.id, child);
    return child;
  }

  private releaseParent(child: Child): void {
    if (this.working(child) || !child.parentHold) return;
    child.parentHold();
    child.parentHold = undefined;
  }

  private async startTurn(child: Child, text: string): Promise<void> {
    child.end = undefined;
    child.pending = true;
    child.parentHold ??= this.host.get(child.parentId)?.hold();
    const turns = child.thread.turns;
    try {
      if (turns.busy) turns.queueAdd({ text, images: [] });
      else await turns.start({ text, images: [] });
    } catch (error) {
      child.pending = false;
      this.releaseParent(child);
      throw new ToolError("notAvailable", `The sub-agent could not take the message: ${(error as Error).message}`);
    }
  }

  /** Interrupting the parent's turn interrupts every child that works. */
  private watchParent(parent: LoadedThread): void {
    if (this.watchedParents.has(parent.id)) return;
    const stop = parent.runtime.session.subscribe((event: SessionEvent) => {
      if (event.type !== "turn_end" || event.status !== "interrupted") return;
      for (const child of this.childrenOf(parent.id)) if (child.isRunning) child.turns.interrupt();
    });
    this.watchedParents.set(parent.id, stop);
  }

  private byName(parentId: string, name: string): Child | undefined {
    return [...this.children.values()].find((child) => child.parentId === parentId && child.name === name && !child.closed);
  }

  /** The child `agent` names (its id or its name), loading it if it is the parent's and not loaded. */
  private async resolve(parentId: string, agent: string): Promise<Child> {
    const found = this.children.get(agent) ?? this.byName(parentId, agent);
    if (found && found.parentId === parentId && !found.closed) return found;
    // Only a thread whose header names this parent is loaded: an id the model made up, or another thread's, never is.
    if ((await this.host.parentOf(agent).catch(() => undefined)) !== parentId)
      throw new ToolError("notFound", `No sub-agent of this thread is ${JSON.stringify(agent)}.`);
    let thread: LoadedThread;
    try {
      thread = this.host.get(agent) ?? (await this.host.load(agent));
    } catch (error) {
      throw new ToolError("notAvailable", `The sub-agent ${JSON.stringify(agent)} could not load: ${(error as Error).message}`);
    }
    return this.track(thread, parentId, undefined);
  }

  private async send(parentId: string, agent: string, message: string): Promise<SubAgentReport> {
    const child = await this.resolve(parentId, agent);
    await this.startTurn(child, message);
    return this.report(child);
  }

  private async wait(
    parentId: string,
    agents: readonly string[] | undefined,
    options: { timeoutMs?: number; signal?: AbortSignal },
  ): Promise<SubAgentReport[]> {
    const chosen = agents
      ? await Promise.all(agents.map((agent) => this.resolve(parentId, agent)))
      : [...this.children.values()].filter((child) => child.parentId === parentId && !child.closed && this.working(child));
    await this.untilFinished(chosen, options);
    return chosen.map((child) => this.report(child));
  }

  private working(child: Child): boolean {
    return !child.closed && (child.pending || child.thread.isRunning || child.thread.turns.hasQueued);
  }

  /** Resolves once none of `children` works, the time runs out, or `signal` aborts. */
  private untilFinished(children: Child[], options: { timeoutMs?: number; signal?: AbortSignal }): Promise<void> {
    return new Promise((resolve) => {
      const undo: Array<() => void> = [];
      const finish = () => {
        for (const step of undo) step();
        resolve();
      };
      const check = () => {
        if (children.every((child) => !this.working(child))) finish();
      };
      for (const child of children) {
        // A turn that ended settles its bookkeeping before the thread is idle: look again once it is.
        const wake = () => void child.thread.turns.settled().then(check);
        child.ended.add(wake);
        undo.push(() => child.ended.delete(wake));
      }
      if (options.timeoutMs !== undefined) {
        const timer = setTimeout(finish, options.timeoutMs);
        undo.push(() => clearTimeout(timer));
      }
      if (options.signal) {
        const signal = options.signal;
        if (signal.aborted) return finish();
        signal.addEventListener("abort", finish, { once: true });
        undo.push(() => signal.removeEventListener("abort", finish));
      }
      void Promise.all(children.map((child) => child.thread.turns.settled())).then(check);
    });
  }

  private async closeOne(parentId: string, agent: string): Promise<SubAgentReport> {
    const child = await this.resolve(parentId, agent);
    await this.host.close(child.thread, "unload");
    this.forget(child.thread.id);
    return { ...this.report(child), status: "closed" };
  }

  private report(child: Child): SubAgentReport {
    const status = this.working(child) ? "running" : (child.end?.status ?? "completed");
    return {
      threadId: child.thread.id,
      ...(child.name !== undefined ? { name: child.name } : {}),
      status: child.closed ? "closed" : status,
      ...(status !== "running" && child.answer !== undefined ? { answer: child.answer } : {}),
      ...(status !== "running" && child.end?.error ? { error: child.end.error } : {}),
      usage: child.thread.usage,
    };
  }

  /** A thread is unloading: as a child it is forgotten, as a parent its children unload with it. */
  async closing(thread: LoadedThread): Promise<void> {
    this.forget(thread.id);
    this.watchedParents.get(thread.id)?.();
    this.watchedParents.delete(thread.id);
    this.startedBy.delete(thread.id);
    this.liveUsage.delete(thread.id);
    await Promise.all(this.childrenOf(thread.id).map((child) => this.host.close(child, "unload")));
  }

  private forget(threadId: string): void {
    const child = this.children.get(threadId);
    if (!child) return;
    child.closed = true;
    child.stopListening();
    child.parentHold?.();
    child.parentHold = undefined;
    for (const wake of [...child.ended]) wake();
    this.children.delete(threadId);
  }
}
