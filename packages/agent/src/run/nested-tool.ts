import type { AgentTool } from "@mariozechner/pi-agent-core";
import type { SessionEvent } from "./events.js";
import type { BeforeToolCall } from "./session-options.js";

/** What a nested tool call gives back to the tool that made it. */
export interface NestedToolResult {
  content: unknown[];
  details?: unknown;
  isError: boolean;
}

export interface NestedCall {
  turnId: string;
  parentId: string;
  toolCallId: string;
  toolName: string;
  args: unknown;
  signal?: AbortSignal;
}

/**
 * Runs one of the thread's tools on behalf of a running tool call (an
 * extension tool that delegates): the same extension hooks and approval
 * gate as a call of the model, reported as a nested call of `parentId`.
 * Nested calls are live only; the parent's result is what the transcript
 * keeps.
 */
export async function runNestedCall(
  call: NestedCall,
  tools: readonly AgentTool[],
  beforeToolCall: BeforeToolCall | undefined,
  emit: (event: SessionEvent) => void,
): Promise<NestedToolResult> {
  const { turnId, parentId, toolCallId, toolName, args, signal } = call;
  const finish = (result: NestedToolResult): NestedToolResult => {
    emit({ type: "nested_tool_end", turnId, parentId, toolCallId, toolName, result, isError: result.isError, completedAt: Date.now() });
    return result;
  };
  emit({ type: "nested_tool_start", turnId, parentId, toolCallId, toolName, args, startedAt: Date.now() });
  const tool = tools.find((candidate) => candidate.name === toolName);
  if (!tool) return finish(errorResult(`Tool ${toolName} not found`));
  try {
    const blocked = await beforeToolCall?.({ toolCallId, toolName, args }, signal);
    if (blocked) return finish(errorResult(blocked.reason));
    const result = await tool.execute(toolCallId, args as never, signal);
    return finish({ content: result.content as unknown[], details: result.details, isError: false });
  } catch (error) {
    return finish(errorResult(error instanceof Error ? error.message : String(error)));
  }
}

function errorResult(message: string): NestedToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}
