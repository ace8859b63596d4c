import type { ImageContent, ModelThinkingLevel } from "@mariozechner/pi-ai";
import type { AgentEvent, AgentMessage, AgentTool, AfterToolCallResult } from "@mariozechner/pi-agent-core";
import type { ModelRef, ModelRegistry } from "../models/registry.js";
import { DEFAULT_COMPACTION, type CompactionSettings } from "./compaction.js";
import { DEFAULT_STREAM_IDLE_TIMEOUT_MS } from "./stall-guard.js";
import type { Transcript, TurnEndStatus } from "./transcript.js";
import type { TurnError } from "./error-kind.js";
import type { ReviewComment } from "@knightcode/repo/git/diff/review-comments";
import type { SteerQueue } from "./steer-queue.js";
import type { TranscriptWriter } from "./transcript-writer.js";

export interface RetrySettings {
  enabled: boolean;
  maxRetries: number;
  baseDelayMs: number;
  maxRetryDelayMs: number;
}

export interface RunSettings {
  retry: RetrySettings;
  compaction: CompactionSettings;
  streamIdleTimeoutMs: number;
  /** After an interrupt, how long a tool or hook that ignores it may hold the turn before the turn ends without it. */
  interruptGraceMs: number;
  /** The most one model reply may stream before it is cut off as too long (MAX_REPLY_BYTES when absent). */
  maxReplyBytes?: number;
}

export const DEFAULT_RUN_SETTINGS: RunSettings = {
  retry: { enabled: true, maxRetries: 3, baseDelayMs: 2_000, maxRetryDelayMs: 60_000 },
  compaction: DEFAULT_COMPACTION,
  streamIdleTimeoutMs: DEFAULT_STREAM_IDLE_TIMEOUT_MS,
  interruptGraceMs: 5_000,
};

export interface ToolCallInfo {
  toolCallId: string;
  toolName: string;
  args: unknown;
}

/** Where the approval gate and extensions' tool_call handlers sit: return a block to stop the call. */
export type BeforeToolCall = (call: ToolCallInfo, signal: AbortSignal | undefined) => Promise<{ block: true; reason: string } | undefined>;
export type AfterToolCall = (
  call: ToolCallInfo & { result: { content: unknown[]; details?: unknown }; isError: boolean },
  signal: AbortSignal | undefined,
) => Promise<AfterToolCallResult | undefined>;

/** Extension points around a turn; the thread runtime wires extensions into them. */
export interface SessionHooks {
  /** After the turn started and before the first model request: may add messages and replace the system prompt for this turn. */
  beforeAgentStart?(input: { prompt: string; images: ImageContent[]; systemPrompt: string }): Promise<{ messages: AgentMessage[]; systemPrompt?: string }>;
  /** Every low-level agent event, awaited in order (the agent waits for it). */
  onAgentEvent?(event: AgentEvent): void | Promise<void>;
}

export interface AgentSessionOptions {
  /** The thread's one steer queue, when the owner of its turns keeps it; the session makes its own otherwise. */
  steers?: SteerQueue;
  /** What writes the transcript, when the thread made one before its session; the session makes its own otherwise. */
  writer?: TranscriptWriter;
  threadId: string;
  cwd: string;
  transcript: Transcript;
  registry: ModelRegistry;
  systemPrompt: string;
  tools: AgentTool[];
  settings?: RunSettings;
  /** The configured default, used when the transcript chose no model. */
  defaultModel?: Partial<ModelRef>;
  defaultThinkingLevel?: ModelThinkingLevel;
  beforeToolCall?: BeforeToolCall;
  afterToolCall?: AfterToolCall;
  hooks?: SessionHooks;
}

export interface TurnInput {
  /** Messages that came before the text: what extensions said while the thread was idle. */
  preamble?: AgentMessage[];
  /** The user's text; absent for a turn an extension's message starts. */
  text?: string;
  /** A turn that only compacts the history (manual compaction). */
  compactOnly?: boolean;
  images?: ImageContent[];
  /** Review comments the user sent with the text, quoted from the diff they reviewed. */
  comments?: ReviewComment[];
  /** Messages sent after the text (an extension's message that triggers the turn). */
  messages?: AgentMessage[];
}

export interface TurnResult {
  turnId: string;
  status: TurnEndStatus;
  error?: TurnError;
}

/** A turn is already running: the caller must steer, queue or wait. */
export class TurnInProgressError extends Error {
  readonly code = "turnInProgress";
  constructor(readonly turnId: string) {
    super(`turn ${turnId} is still running`);
  }
}
