import type { AssistantMessage } from "@mariozechner/pi-ai";
import type { TokenUsage } from "@knightcode/schema/threads";
import { addUsage } from "@knightcode/store/session/summary";

/** A thread's token usage: the branch's cumulative counts and cost (dollars), and how full the context is now; the wire's shape. */
export type { TokenUsage };

export function emptyUsage(contextWindow: number): TokenUsage {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, contextWindow };
}

/** Adds one finalized reply; a reply without usage (an error) leaves the context figure as it was. */
export function addReply(usage: TokenUsage, message: AssistantMessage): TokenUsage {
  const next: TokenUsage = { ...usage };
  addUsage(next, message.usage, true);
  return next;
}
