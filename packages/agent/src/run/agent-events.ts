import type { AgentEvent } from "@mariozechner/pi-agent-core";
import type { SessionEvent } from "./events.js";

/** What the session reports of an engine event of the turn `turnId`; undefined for those it does not report (a finished message is recorded first, by the session). */
export function sessionEventOf(event: AgentEvent, turnId: string): SessionEvent | undefined {
  switch (event.type) {
    case "message_start":
      return { type: "message_start", turnId, message: event.message };
    case "message_update":
      return event.message.role === "assistant" ? { type: "message_update", turnId, message: event.message, event: event.assistantMessageEvent } : undefined;
    case "tool_execution_start":
      return { type: "tool_start", turnId, toolCallId: event.toolCallId, toolName: event.toolName, args: event.args };
    case "tool_execution_update":
      return { type: "tool_update", turnId, toolCallId: event.toolCallId, toolName: event.toolName, partial: event.partialResult };
    case "tool_execution_end":
      return { type: "tool_end", turnId, toolCallId: event.toolCallId, toolName: event.toolName, result: event.result, isError: event.isError };
    default:
      return undefined;
  }
}
