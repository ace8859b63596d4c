import type { SubAgentReport, SubAgentStart } from "../tools/subagents.js";
import type { Api, ImageContent, Model, TextContent } from "@mariozechner/pi-ai";
import type { AgentMessage, AgentToolResult, AgentToolUpdateCallback } from "@mariozechner/pi-agent-core";
import type { ProviderStream } from "../models/models-json.js";

/** Where an extension runs: a desktop app over the app server, a terminal, or nothing interactive. */
export type ExtensionMode = "desktop" | "terminal" | "headless";

export type NotifyLevel = "info" | "warning" | "error";
export type WidgetPlacement = "aboveEditor" | "belowEditor";

export interface DialogOptions {
  signal?: AbortSignal;
}

/**
 * What an extension may show or ask. The host supplies it: the app server's
 * dialogs and widgets for desktop threads, a silent one for headless runs.
 * Terminal-only methods (custom components, header, footer, editor access)
 * do nothing outside a terminal.
 */
export interface ExtensionUI {
  select(title: string, options: string[], opts?: DialogOptions): Promise<string | undefined>;
  confirm(title: string, message: string, opts?: DialogOptions): Promise<boolean>;
  input(title: string, placeholder?: string, opts?: DialogOptions): Promise<string | undefined>;
  editor(title: string, prefill?: string, opts?: DialogOptions): Promise<string | undefined>;
  notify(message: string, level?: NotifyLevel): void;
  setStatus(key: string, text: string | undefined): void;
  /** Lines, or a declarative view (data, never HTML); undefined removes the widget. */
  setWidget(key: string, content: string[] | object | undefined, options?: { placement?: WidgetPlacement }): void;
  setTitle(title: string | undefined): void;
  setWorkingMessage(message?: string): void;
  setWorkingVisible(visible: boolean): void;
  onViewEvent(handler: (event: { widgetKey: string; id: string; value?: string | boolean }) => void | Promise<void>): () => void;
  custom(...args: unknown[]): Promise<unknown>;
  setHeader(...args: unknown[]): void;
  setFooter(...args: unknown[]): void;
  setEditorText(text: string): void;
  getEditorText(): string;
  pasteToEditor(text: string): void;
}

/**
 * A host's UI that tells extensions apart: `forExtension` gives the UI one
 * extension sees, so that what it registers there (a view handler) is known
 * to be its own, and a failure can name it.
 */
export interface ScopedExtensionUI extends ExtensionUI {
  forExtension(path: string): ExtensionUI;
}

/** What every handler, command and tool of an extension gets about its thread. */
export interface ExtensionContext {
  readonly threadId: string;
  readonly cwd: string;
  readonly mode: ExtensionMode;
  readonly hasUI: boolean;
  readonly ui: ExtensionUI;
  /** The thread's model, when one is chosen. */
  readonly model: Model<Api> | undefined;
  /** The running turn's signal; undefined between turns. */
  readonly signal: AbortSignal | undefined;
  /** Interrupts the running turn, if any. */
  abort(): void;
  isIdle(): boolean;
  /** Sub-agents of this thread, as the model's sub-agent tools start them; undefined in a sub-agent, which starts none. */
  readonly subagents: ExtensionSubAgents | undefined;
}

/** Sub-agents through the same calls as the model's agent_start, agent_send, agent_wait and agent_close. */
export interface ExtensionSubAgents {
  /** Starts one on `task`; resolves once it works, with its thread id. */
  start(spec: Omit<SubAgentStart, "wait">): Promise<SubAgentReport>;
  send(agent: string, message: string): Promise<SubAgentReport>;
  /** Resolves once those named (or all working) have finished, with their answers and usage. */
  wait(agents?: readonly string[], options?: { timeoutMs?: number; signal?: AbortSignal }): Promise<SubAgentReport[]>;
  close(agent: string): Promise<SubAgentReport>;
}

/** The context an extension tool's `execute` gets: the thread's, plus calls of other tools. */
export interface ExtensionToolContext extends ExtensionContext {
  /**
   * Runs another of the thread's tools as part of this call, through the
   * same tool_call handlers and approval gate as the model's calls. Clients
   * see it live as a nested call; only this tool's own result is saved.
   */
  runTool(name: string, params: unknown, signal?: AbortSignal): Promise<{ content: (TextContent | ImageContent)[]; details?: unknown; isError: boolean }>;
}

export type InputResult = { action: "continue" } | { action: "transform"; text: string; images?: ImageContent[] } | { action: "handled" };

export interface ExtensionEvents {
  session_start: { reason: "startup" | "reload" | "resume" | "fork" };
  session_shutdown: { reason: "unload" | "reload" | "shutdown" };
  /** User input before it becomes a turn: continue, transform it, or handle it yourself. */
  input: { text: string; images: ImageContent[]; source: "user" | "queue" | "extension" };
  before_agent_start: { prompt: string; images: ImageContent[]; systemPrompt: string };
  agent_start: Record<string, never>;
  agent_end: { messages: AgentMessage[] };
  turn_start: { turnIndex: number };
  turn_end: { turnIndex: number; message: AgentMessage; toolResults: AgentMessage[] };
  message_start: { message: AgentMessage };
  message_end: { message: AgentMessage };
  /** Before a tool runs; `input` may be changed in place. Return a block to stop it. */
  tool_call: { toolCallId: string; toolName: string; input: Record<string, unknown> };
  tool_result: {
    toolCallId: string;
    toolName: string;
    input: Record<string, unknown>;
    content: (TextContent | ImageContent)[];
    details: unknown;
    isError: boolean;
  };
}

export interface ExtensionResults {
  session_start: void;
  session_shutdown: void;
  input: InputResult | void;
  before_agent_start: { message?: ExtensionMessageInput; systemPrompt?: string } | void;
  agent_start: void;
  agent_end: void;
  turn_start: void;
  turn_end: void;
  message_start: void;
  message_end: void;
  tool_call: { block: true; reason?: string } | void;
  tool_result: { content?: (TextContent | ImageContent)[]; details?: unknown; isError?: boolean } | void;
}

export type ExtensionEventName = keyof ExtensionEvents;
export type ExtensionHandler<E extends ExtensionEventName> = (
  event: ExtensionEvents[E],
  ctx: ExtensionContext,
) => ExtensionResults[E] | Promise<ExtensionResults[E]>;

export interface ExtensionMessageInput {
  customType: string;
  content: string | (TextContent | ImageContent)[];
  /** Shown in the transcript (default true). */
  display?: boolean;
  details?: unknown;
}

export interface ExtensionToolDefinition {
  name: string;
  label?: string;
  description: string;
  /** JSON Schema of the arguments: a TypeBox schema or a plain object written by hand. */
  parameters: object;
  execute(
    toolCallId: string,
    // biome-ignore lint/suspicious/noExplicitAny: an extension's arguments are checked by its own `parameters` schema, which TypeScript cannot see
    params: any,
    signal: AbortSignal | undefined,
    onUpdate: AgentToolUpdateCallback | undefined,
    ctx: ExtensionToolContext,
  ): Promise<AgentToolResult<unknown>> | AgentToolResult<unknown>;
}

/** What a command's handler gets: the thread's context, plus what only a command the user typed may do. */
export interface ExtensionCommandContext extends ExtensionContext {
  /**
   * Replaces the thread with a fresh one in the same folder, with the same
   * model, thinking level and approval mode; resolves to the new thread's
   * id. Every context the old thread's extensions were given goes stale.
   * Rejects while a turn runs, on a stale context, and where the host
   * starts no sessions.
   */
  newSession(): Promise<string>;
}

export interface ExtensionCommand {
  description?: string;
  handler(args: string, ctx: ExtensionCommandContext): void | Promise<void>;
}

export interface ProviderDefinition {
  baseUrl: string;
  api?: string;
  apiKey?: string;
  headers?: Record<string, string>;
  /**
   * The provider's own streaming, for an API pi-ai does not speak: it gets
   * the model, the context (failed replies left out) and the options
   * (`signal`, `apiKey`), and yields pi-ai's assistant message events,
   * ending with `done` or `error`. A throw, sync or midway, fails the turn.
   */
  streamSimple?: ProviderStream;
  models: {
    id: string;
    name?: string;
    reasoning?: boolean;
    input?: ("text" | "image")[];
    contextWindow?: number;
    maxTokens?: number;
    cost?: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number };
  }[];
}

export interface ExecResult {
  stdout: string;
  stderr: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
}

/** The object an extension's default export receives. */
export interface ExtensionAPI {
  on<E extends ExtensionEventName>(event: E, handler: ExtensionHandler<E>): void;
  registerTool(tool: ExtensionToolDefinition): void;
  registerCommand(name: string, command: ExtensionCommand): void;
  registerProvider(name: string, provider: ProviderDefinition): void;
  /** Adds a message to the conversation: now if idle, into the running turn otherwise. */
  sendMessage(message: ExtensionMessageInput, options?: { triggerTurn?: boolean; deliverAs?: "steer" | "followUp" }): void;
  /** Stores extension state in the session file (never sent to the model). */
  appendEntry(customType: string, data?: unknown): void;
  exec(command: string, args?: string[], options?: { cwd?: string; timeout?: number; signal?: AbortSignal }): Promise<ExecResult>;
  readonly cwd: string;
  readonly mode: ExtensionMode;
}

export type ExtensionFactory = (api: ExtensionAPI) => void | Promise<void>;

export interface ExtensionWarning {
  message: string;
  source: "extension";
  path?: string;
}
