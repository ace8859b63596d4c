import type { AssistantMessage, AssistantMessageEvent } from "@mariozechner/pi-ai";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { TurnError } from "./error-kind.js";
import type { TurnEndStatus } from "./transcript.js";
import type { TokenUsage } from "./usage.js";

export type CompactionReason = "manual" | "threshold" | "overflow";

/**
 * Everything a thread's run reports, in order. The server maps these to
 * turns and items; nothing here knows of the protocol.
 */
export type SessionEvent =
  | { type: "turn_start"; turnId: string; startedAt: number }
  | { type: "message_start"; turnId: string; message: AgentMessage }
  | { type: "message_update"; turnId: string; message: AssistantMessage; event: AssistantMessageEvent }
  /** A finished message, as appended to the transcript under `entryId` at `entryTimestamp`. */
  | { type: "message_end"; turnId: string; message: AgentMessage; entryId: string; entryTimestamp: number }
  | { type: "tool_start"; turnId: string; toolCallId: string; toolName: string; args: unknown }
  | { type: "tool_update"; turnId: string; toolCallId: string; toolName: string; partial: unknown }
  | { type: "tool_end"; turnId: string; toolCallId: string; toolName: string; result: unknown; isError: boolean }
  /** A call a running tool made of another tool: live only, never saved. */
  | { type: "nested_tool_start"; turnId: string; parentId: string; toolCallId: string; toolName: string; args: unknown; startedAt: number }
  | {
      type: "nested_tool_end";
      turnId: string;
      parentId: string;
      toolCallId: string;
      toolName: string;
      result: { content: unknown[]; details?: unknown };
      isError: boolean;
      completedAt: number;
    }
  | { type: "usage"; turnId?: string; usage: TokenUsage }
  | { type: "retry"; turnId: string; attempt: number; maxAttempts: number; delayMs: number; error: TurnError }
  | { type: "compaction_start"; turnId?: string; reason: CompactionReason }
  | {
      type: "compaction_end";
      turnId?: string;
      reason: CompactionReason;
      result?: { summary: string; entryId: string; tokensBefore: number; timestamp: number };
      error?: string;
      aborted?: boolean;
    }
  | { type: "turn_end"; turnId: string; status: TurnEndStatus; error?: TurnError; startedAt: number; completedAt: number }
  /** The transcript can no longer be written (ownership lost, disk failure): the thread must close. */
  | { type: "fatal"; error: Error };

export type SessionListener = (event: SessionEvent) => void;
