import type { AgentEvent, AgentMessage } from "@mariozechner/pi-agent-core";
import type { TextContent, ImageContent } from "@mariozechner/pi-ai";
import { extensionMessage } from "../run/messages.js";
import type { AfterToolCall, BeforeToolCall, SessionHooks } from "../run/session-options.js";
import type { ExtensionHost, HandlerFailure } from "./host.js";

/** Where extension events plug into a thread's agent run. */
export interface ExtensionRunHooks {
  beforeToolCall: BeforeToolCall;
  afterToolCall: AfterToolCall;
  hooks: SessionHooks;
}

/**
 * Connects an extension host to a session: `tool_call` handlers may change
 * a call's input or block it (the block reason reaches the model as the
 * tool's error), and one that fails or runs out of time blocks it too: it
 * is a gate, and a gate that could not decide must not let the call
 * through. `tool_result` handlers may patch results,
 * `before_agent_start` may add messages and replace the system prompt for
 * the turn, and the agent's lifecycle reaches the matching events.
 */
export function extensionRunHooks(host: ExtensionHost): ExtensionRunHooks {
  let turnIndex = 0;
  return {
    beforeToolCall: async (call, signal) => {
      const input = (call.args ?? {}) as Record<string, unknown>;
      const results = await host.emit(
        "tool_call",
        { toolCallId: call.toolCallId, toolName: call.toolName, input },
        { stop: (r) => r?.block === true, signal, onFailure: (failure) => ({ block: true, reason: uncheckedCallReason(failure) }) },
      );
      if (signal?.aborted) return { block: true, reason: "the turn was interrupted" };
      const block = results.find((r) => r?.block === true);
      if (!block) return undefined;
      return { block: true, reason: block.reason ?? `blocked by an extension` };
    },
    afterToolCall: async (call, signal) => {
      let content = call.result.content as (TextContent | ImageContent)[];
      let details = call.result.details;
      let isError = call.isError;
      let patched = false;
      const payload = { toolCallId: call.toolCallId, toolName: call.toolName, input: (call.args ?? {}) as Record<string, unknown>, content, details, isError };
      for (const result of await host.emit("tool_result", payload, { signal })) {
        if (!result) continue;
        if (Array.isArray(result.content)) (content = result.content), (patched = true);
        if ("details" in result) (details = result.details), (patched = true);
        if (typeof result.isError === "boolean") (isError = result.isError), (patched = true);
      }
      return patched ? { content, details, isError } : undefined;
    },
    hooks: {
      beforeAgentStart: async ({ prompt, images, systemPrompt }) => {
        let current = systemPrompt;
        const messages: AgentMessage[] = [];
        for (const result of await host.emit("before_agent_start", { prompt, images, systemPrompt })) {
          if (!result) continue;
          if (typeof result.systemPrompt === "string") current = result.systemPrompt;
          if (result.message) messages.push(extensionMessage(result.message));
        }
        return current === systemPrompt ? { messages } : { messages, systemPrompt: current };
      },
      onAgentEvent: async (event: AgentEvent) => {
        switch (event.type) {
          case "agent_start":
            turnIndex = 0;
            await host.emit("agent_start", {});
            break;
          case "agent_end":
            await host.emit("agent_end", { messages: event.messages });
            break;
          case "turn_start":
            await host.emit("turn_start", { turnIndex });
            break;
          case "turn_end":
            await host.emit("turn_end", { turnIndex: turnIndex++, message: event.message, toolResults: event.toolResults });
            break;
          case "message_start":
            await host.emit("message_start", { message: event.message });
            break;
          case "message_end":
            await host.emit("message_end", { message: event.message });
            break;
          default:
            break;
        }
      },
    },
  };
}

/** What the model reads when a `tool_call` handler could not decide on its call. */
function uncheckedCallReason(failure: HandlerFailure): string {
  const check = `the ${failure.extension} extension's check of this call`;
  return failure.timedOut
    ? `Blocked: ${check} ${failure.message}, so the call did not run.`
    : `Blocked: ${check} failed (${failure.message}), so the call did not run.`;
}

/**
 * Runs the `input` handlers over user input: each may let it continue,
 * transform it (later handlers see the new text) or handle it, which ends
 * the input without a turn.
 */
export async function runInputHooks(
  host: ExtensionHost,
  input: { text: string; images: ImageContent[]; source: "user" | "queue" | "extension" },
  signal?: AbortSignal,
): Promise<{ action: "continue"; text: string; images: ImageContent[] } | { action: "handled" }> {
  // One payload object: a transform rewrites it, so later handlers see the new input.
  const payload = { text: input.text, images: input.images, source: input.source };
  const results = await host.emit("input", payload, {
    stop: (result) => {
      if (result?.action === "transform") {
        payload.text = result.text;
        payload.images = result.images ?? payload.images;
      }
      return result?.action === "handled";
    },
    signal,
  });
  if (results.some((r) => r?.action === "handled")) return { action: "handled" };
  return { action: "continue", text: payload.text, images: payload.images };
}
