import type { Api, ImageContent, Model, ModelThinkingLevel } from "@mariozechner/pi-ai";
import type { Agent, AgentEvent, AgentMessage, AgentTool } from "@mariozechner/pi-agent-core";
import { loadEngine, type Engine } from "../models/engine.js";
import { ModelError } from "../models/errors.js";
import type { ModelRef, ModelRegistry } from "../models/registry.js";
import { runCompaction, type CompactionResult } from "./compact-run.js";
import type { TurnError } from "./error-kind.js";
import type { CompactionReason, SessionEvent, SessionListener } from "./events.js";
import { userMessage } from "./messages.js";
/** Also carries the transcript's own message types (declared in messages.ts) to every importer of the session. */
export { userMessage };
import { createEngineAgent } from "./engine-agent.js";
import { contextMessages, type Transcript, type TurnEndStatus } from "./transcript.js";
import { runTurnLoop } from "./turn-loop.js";
import { runNestedCall, type NestedToolResult } from "./nested-tool.js";
import { sessionEventOf } from "./agent-events.js";
import { SteerQueue, type HeldSteer } from "./steer-queue.js";
import { TurnRecord, withTurnTools } from "./turn.js";
import { addReply, type TokenUsage } from "./usage.js";
import type { PendingEntry, UnsavedTail } from "./unsaved.js";
import { TranscriptWriter } from "./transcript-writer.js";
import { graceAfterStop, leftBehindResults } from "./stop-grace.js";
import { DEFAULT_RUN_SETTINGS, TurnInProgressError, type AgentSessionOptions, type RunSettings, type TurnInput, type TurnResult } from "./session-options.js";

/**
 * One thread's agent: its transcript, model, tools, token usage and the
 * turn that is running. Runs turns on pi-agent-core, persists every
 * message, retries transient provider errors and compacts inside a turn,
 * and reports all of it as SessionEvents. Knows nothing of JSON-RPC.
 */
export class AgentSession {
  readonly threadId: string;
  readonly cwd: string;
  readonly transcript: Transcript;
  readonly registry: ModelRegistry;
  readonly settings: RunSettings;
  private readonly listeners = new Set<SessionListener>();
  private engine: Engine | undefined;
  private agent: Agent | undefined;
  private currentModel: Model<Api> | undefined;
  private level: ModelThinkingLevel;
  private tokenUsage: TokenUsage;
  /** The turn this session runs now: the same record its owner holds, never a copy. */
  private current: TurnRecord | undefined;
  /** Where every entry goes; its failure stops the running turn. */
  readonly writer: TranscriptWriter;
  private systemPrompt: string;
  private tools: AgentTool[];
  /** Steering and follow-up messages, from the input hooks to the transcript: the owner of the turn holds the same queue. */
  readonly steers: SteerQueue;
  private nestedCalls = 0;
  /** Agents left behind by a turn that did not stop in time: what they still do is ignored. */
  private readonly abandoned = new WeakSet<Agent>();
  private readonly disposed = new AbortController();

  constructor(private readonly options: AgentSessionOptions) {
    this.threadId = options.threadId;
    this.cwd = options.cwd;
    this.transcript = options.transcript;
    this.registry = options.registry;
    this.settings = options.settings ?? DEFAULT_RUN_SETTINGS;
    this.systemPrompt = options.systemPrompt;
    this.tools = options.tools;
    this.steers = options.steers ?? new SteerQueue();
    this.writer = options.writer ?? new TranscriptWriter(options.transcript);
    this.writer.onFatal((fault) => {
      this.current?.fail({ message: fault.message, kind: "other" });
      this.emit({ type: "fatal", error: fault });
    });
    const state = this.transcript.summary();
    this.level = (state.thinkingLevel ?? options.defaultThinkingLevel ?? "medium") as ModelThinkingLevel;
    this.tokenUsage = { ...state.usage, contextWindow: 0 };
  }

  subscribe(listener: SessionListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** @internal used by the turn loop and compaction */
  emit(event: SessionEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A listener's failure is its own; the run goes on.
      }
    }
  }

  get usage(): TokenUsage {
    return this.tokenUsage;
  }

  get model(): Model<Api> | undefined {
    return this.currentModel;
  }

  get thinkingLevel(): ModelThinkingLevel {
    return this.level;
  }

  /** The turn being run, from its start entry to its end entry. */
  get runningTurn(): TurnRecord | undefined {
    return this.current;
  }

  get fatal(): Error | undefined {
    return this.writer.fatal;
  }

  /** What the thread could not write since its disk failed; undefined when nothing failed or the failure is not one to recover from. */
  unsavedTail(): UnsavedTail | undefined {
    return this.writer.unsavedTail();
  }

  /** The model the transcript or the settings choose, or undefined when none is usable yet. */
  async resolveModel(): Promise<Model<Api> | undefined> {
    if (this.currentModel) return this.currentModel;
    const chosen = this.transcript.summary().model;
    try {
      this.currentModel = await this.registry.resolve(chosen, this.options.defaultModel);
    } catch (error) {
      if (error instanceof ModelError && error.code === "noModel") return undefined;
      throw error;
    }
    this.tokenUsage = { ...this.tokenUsage, contextWindow: this.currentModel.contextWindow };
    return this.currentModel;
  }

  /** Chooses the model for later turns and records the choice in the transcript. */
  async setModel(ref: ModelRef): Promise<Model<Api>> {
    const model = await this.registry.find(ref);
    if (!model) throw new ModelError("modelNotFound", `unknown model ${ref.provider}/${ref.id}`, ref.provider, ref.id);
    const levels = await this.registry.thinkingLevels(model);
    this.appendSafely({ type: "model_change", provider: model.provider, modelId: model.id });
    this.currentModel = model;
    if (!levels.includes(this.level)) this.setThinkingLevelUnchecked(levels.includes("medium") ? "medium" : levels[0]!);
    if (this.agent) this.agent.state.model = model;
    this.tokenUsage = { ...this.tokenUsage, contextWindow: model.contextWindow };
    return model;
  }

  /** Sets the thinking level; a level the model does not offer is a ModelError. */
  async setThinkingLevel(level: ModelThinkingLevel): Promise<void> {
    const model = await this.resolveModel();
    const levels = model ? await this.registry.thinkingLevels(model) : ["off", "minimal", "low", "medium", "high", "xhigh"];
    if (!levels.includes(level)) {
      throw new ModelError("invalidThinkingLevel", `${model?.id ?? "the model"} offers thinking levels ${levels.join(", ")}, not ${level}`);
    }
    this.setThinkingLevelUnchecked(level);
  }

  private setThinkingLevelUnchecked(level: ModelThinkingLevel): void {
    this.appendSafely({ type: "thinking_level_change", thinkingLevel: level });
    this.level = level;
    if (this.agent) this.agent.state.thinkingLevel = level;
  }

  /** Runs one of the thread's tools for a running tool call that delegates to it (see runNestedCall). */
  async runNestedTool(parentId: string, toolName: string, args: unknown, signal?: AbortSignal): Promise<NestedToolResult> {
    const turnId = this.current?.id;
    if (turnId === undefined) throw new Error("a nested tool call needs a running turn");
    const call = { turnId, parentId, toolCallId: `${parentId}.${++this.nestedCalls}`, toolName, args, ...(signal ? { signal } : {}) };
    return runNestedCall(call, this.tools, this.options.beforeToolCall, (event) => this.emit(event));
  }

  setTools(tools: AgentTool[]): void {
    this.tools = tools;
    if (this.agent) this.agent.state.tools = withTurnTools(tools, this.current?.tools);
  }

  setSystemPrompt(prompt: string): void {
    this.systemPrompt = prompt;
    if (this.agent) this.agent.state.systemPrompt = prompt;
  }

  /**
   * Checks that a turn can start (a model and its credentials) and readies
   * the engine. Throws a ModelError with a clear message otherwise; nothing
   * is written.
   */
  async prepare(): Promise<Agent> {
    const model = await this.resolveModel();
    if (!model)
      throw new ModelError(
        "noModel",
        "no model is usable: add an API key (auth.json or an environment variable) or a provider in models.json, then choose a model",
      );
    await this.registry.requireCredentials(model);
    this.engine ??= await loadEngine();
    // The model's context is the branch: a thread opened from its newest checkpoint reads it now.
    await this.transcript.loadBranch();
    this.agent ??= this.createAgent(this.engine, model);
    return this.agent;
  }

  private createAgent(engine: Engine, model: Model<Api>): Agent {
    const { beforeToolCall, afterToolCall, hooks } = this.options;
    return createEngineAgent({
      engine,
      threadId: this.threadId,
      model,
      thinkingLevel: this.level,
      systemPrompt: this.systemPrompt,
      tools: this.tools,
      messages: contextMessages(this.transcript.branch()).messages,
      registry: this.registry,
      settings: this.settings,
      ...(beforeToolCall ? { beforeToolCall } : {}),
      ...(afterToolCall ? { afterToolCall } : {}),
      ...(hooks ? { hooks } : {}),
      abandoned: this.abandoned,
      onEvent: (event) => this.onAgentEvent(event),
    });
  }

  private onAgentEvent(event: AgentEvent): void {
    const turnId = this.current?.id ?? "";
    if (event.type === "message_end") return this.recordMessage(turnId, event.message);
    const mapped = sessionEventOf(event, turnId);
    if (mapped) this.emit(mapped);
  }

  private recordMessage(turnId: string, message: AgentMessage): void {
    const entry =
      message.role === "custom"
        ? this.appendSafely({
            type: "custom_message",
            customType: message.customType,
            content: message.content,
            display: message.display,
            ...(message.details === undefined ? {} : { details: message.details }),
          })
        : this.appendSafely({ type: "message", message });
    this.steers.delivered(message);
    this.emit({ type: "message_end", turnId, message, entryId: entry?.id ?? "", entryTimestamp: entry?.timestamp ?? Date.now() });
    if (message.role === "assistant") {
      this.tokenUsage = addReply(this.tokenUsage, message);
      this.emit({ type: "usage", turnId, usage: this.tokenUsage });
    }
  }

  /** Appends through the writer: a failure to write fails the running turn and stops the thread. */
  appendSafely(entry: PendingEntry, durable = false): { id: string; timestamp: number } | undefined {
    return this.writer.append(entry, durable);
  }

  /** @internal compaction adds the summary request's billing */
  addUsage(usage: TokenUsage): void {
    this.tokenUsage = usage;
    this.emit({ type: "usage", turnId: this.current?.id, usage });
  }

  /**
   * Runs one turn to its end: durable start and end entries around one or more agent runs
   * (retries, overflow recovery, steering). `turn` is the record its owner holds (a fresh one
   * when the caller keeps none); the session moves it along and never keeps state of its own
   * beside it. Resolves with the outcome; a failure to start (no model, no credentials)
   * throws before anything is written.
   */
  async runTurn(input: TurnInput, turn: TurnRecord = new TurnRecord()): Promise<TurnResult> {
    if (this.current) throw new TurnInProgressError(this.current.id ?? "");
    if (this.fatal) throw this.fatal;
    if (turn.phase === "admitting") turn.launch();
    const agent = await this.prepare();
    if (this.current) throw new TurnInProgressError((this.current as TurnRecord).id ?? "");
    const start = this.appendSafely({ type: "turn_start" });
    if (!start) {
      // Nothing of this turn was written or shown: it did not start, and recovering must not start it either.
      this.writer.dropLastUnsaved();
      throw this.fatal ?? new Error("could not start the turn");
    }
    turn.begin(start.id, Date.now());
    this.current = turn;
    this.setTools(this.tools);
    const stopAgent = () => agent.abort();
    turn.signal.addEventListener("abort", stopAgent, { once: true });
    const turnId = start.id;
    const startedAt = turn.startedAt!;
    this.emit({ type: "turn_start", turnId, startedAt });
    let error = await this.runLoop(agent, turn, input);
    turn.settle();
    turn.signal.removeEventListener("abort", stopAgent);
    if (turn.fault) error = turn.fault;
    const status: TurnEndStatus = turn.fault ? "failed" : turn.interrupted ? "interrupted" : error ? "failed" : "completed";
    // Undelivered steers belong to this turn: they end with it and never reach a later one.
    agent.clearAllQueues();
    this.current = undefined;
    this.steers.dropAccepted();
    const completedAt = Date.now();
    const end: Record<string, unknown> = { type: "turn_end", turnId, status };
    if (status === "failed" && error) end.error = error;
    await this.writer.appendDurably(end as { type: string });
    turn.end({ status, ...(status === "failed" && error ? { error } : {}), completedAt });
    this.emit({ type: "turn_end", turnId, status, ...(status === "failed" && error ? { error } : {}), startedAt, completedAt });
    return { turnId, status, ...(status === "failed" && error ? { error } : {}) };
  }

  /**
   * The turn's agent runs, until they end or, once the turn was stopped,
   * until the grace period is over: a tool or hook that ignores the stop
   * cannot hold the turn (and the thread) for ever. Then the agent is left
   * behind and the next turn gets a new one.
   */
  private async runLoop(agent: Agent, turn: TurnRecord, input: TurnInput): Promise<TurnError | undefined> {
    const loop = runTurnLoop({ session: this, agent, turn, input, hooks: this.options.hooks }).catch(
      (thrown: unknown): TurnError => ({ message: thrown instanceof Error ? thrown.message : String(thrown), kind: "other" }),
    );
    const finished = new AbortController();
    // Disposing the session stops the wait too: no timer outlives the thread.
    const grace = graceAfterStop(turn.signal, this.settings.interruptGraceMs, [finished.signal, this.disposed.signal]);
    const outcome = await Promise.race([loop.then((error) => ({ error })), grace]);
    finished.abort();
    if (outcome !== "abandoned") return outcome.error;
    this.abandon(agent, turn);
    return undefined;
  }

  /**
   * Leaves an agent whose run did not stop in time: nothing it does later
   * reaches the transcript or the client, the calls it still runs are saved
   * as failed, and the next turn starts on a new agent built from the
   * transcript.
   */
  private abandon(agent: Agent, turn: TurnRecord): void {
    this.agent = undefined;
    this.abandoned.add(agent);
    const turnId = turn.id!;
    const streaming = agent.state.streamingMessage;
    if (streaming?.role === "assistant") this.recordMessage(turnId, { ...streaming, stopReason: "aborted" });
    for (const result of leftBehindResults(agent, this.settings.interruptGraceMs)) this.recordMessage(turnId, result);
    agent.abort();
  }

  /** Hands the user's input to the running turn; false when no turn accepts input. */
  steer(text: string, images: ImageContent[] = []): boolean {
    return this.deliver(userMessage(text, images), "steer");
  }

  /** Queues input for when the running turn's agent would otherwise stop (it still belongs to this turn); false when no turn accepts input. */
  followUp(text: string, images: ImageContent[] = []): boolean {
    return this.deliver(userMessage(text, images), "followUp");
  }

  /**
   * Hands a message (the user's, or an extension's) to the running turn: `steer` reaches the model after the
   * current tool calls, `followUp` once the agent would otherwise stop. False when no turn accepts input.
   * `held`: the steer it comes from, which the queue accepts in its place.
   */
  deliver(message: AgentMessage, as: "steer" | "followUp", held?: HeldSteer): boolean {
    if (!this.current?.accepting || !this.agent) return false;
    this.steers.accept(message, held);
    if (as === "steer") this.agent.steer(message);
    else this.agent.followUp(message);
    return true;
  }

  /** Adds a message to the context between turns: saved now, sent with the next request. False while a turn runs (steer or follow up instead). */
  addMessage(message: AgentMessage): boolean {
    if (this.current) return false;
    this.recordMessage("", message);
    this.agent?.state.messages.push(message);
    return true;
  }

  /** Stops the running turn: the model request, running tools, a retry wait or a compaction. */
  abort(): void {
    this.current?.interrupt();
  }

  /** Manual compaction outside a turn; the server runs it as a turn of its own (runTurn with compactOnly). */
  async compact(signal?: AbortSignal): Promise<CompactionResult> {
    if (this.current) throw new TurnInProgressError(this.current.id ?? "");
    const agent = await this.prepare();
    return runCompaction({ session: this, agent, reason: "manual", signal });
  }

  /** The system prompt as configured (a turn may replace it for itself). */
  get baseSystemPrompt(): string {
    return this.systemPrompt;
  }

  engineOrThrow(): Engine {
    if (!this.engine) throw new Error("engine not loaded");
    return this.engine;
  }

  /** @internal */
  compactionFor(reason: CompactionReason, agent: Agent, signal: AbortSignal) {
    return runCompaction({ session: this, agent, reason, signal, turnId: this.current?.id });
  }

  dispose(): void {
    this.abort();
    this.disposed.abort();
    this.listeners.clear();
  }
}
