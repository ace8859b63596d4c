import type { AssistantMessage } from "@mariozechner/pi-ai";
import type { UsageTotals } from "../session/summary.js";

/** A thread's token usage: the branch's cumulative counts and cost (dollars), and how full the context is now. */
export interface TokenUsage extends UsageTotals {
  contextWindow: number;
}

export function emptyUsage(contextWindow: number): TokenUsage {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, contextWindow };
}

/** Tokens a reply says the context held: everything sent plus what came back. */
export function contextTokensOf(message: AssistantMessage): number | undefined {
  const u = message.usage;
  const total = u.input + u.cacheRead + u.cacheWrite + u.output;
  return total > 0 ? total : undefined;
}

/** Adds one finalized reply; a reply without usage (an error) leaves the context figure as it was. */
export function addReply(usage: TokenUsage, message: AssistantMessage): TokenUsage {
  const u = message.usage;
  const next: TokenUsage = {
    ...usage,
    input: usage.input + u.input,
    output: usage.output + u.output,
    cacheRead: usage.cacheRead + u.cacheRead,
    cacheWrite: usage.cacheWrite + u.cacheWrite,
    cost: usage.cost + u.cost.total,
  };
  const context = contextTokensOf(message);
  if (context !== undefined) next.contextTokens = context;
  return next;
}
