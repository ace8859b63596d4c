import type { Agent } from "@mariozechner/pi-agent-core";
import { planCompaction, summarize } from "./compaction.js";
import type { CompactionReason } from "./events.js";
import { contextMessages } from "./transcript.js";
import type { AgentSession } from "./session.js";
import { addReply } from "./usage.js";

export interface CompactionOutcome {
  summary: string;
  entryId: string;
  tokensBefore: number;
  timestamp: number;
}

/**
 * Summarizes the older part of the context with the thread's model, records
 * a compaction entry and replaces the live context with the summary and the
 * kept messages. Undefined when there was nothing to compact, it failed or it
 * was aborted (the event says which); the transcript is untouched then.
 */
export async function runCompaction(options: {
  session: AgentSession;
  agent: Agent;
  reason: CompactionReason;
  signal?: AbortSignal;
  turnId?: string;
}): Promise<CompactionOutcome | undefined> {
  const { session, agent, reason, signal, turnId } = options;
  const { messages, entryIds } = contextMessages(session.transcript.branch());
  const plan = planCompaction(messages, session.settings.compaction.keepRecentTokens);
  session.emit({ type: "compaction_start", turnId, reason });
  if (!plan) {
    session.emit({ type: "compaction_end", turnId, reason, error: "nothing to compact yet" });
    return undefined;
  }
  // Keeping nothing points past the last entry: the summary alone carries the context on.
  const firstKeptEntryId = entryIds[plan.keepFrom];
  const model = agent.state.model;
  try {
    const apiKey = await session.registry.requireCredentials(model);
    const { ai } = session.engineOrThrow();
    let billed: unknown;
    const summary = await summarize({ ai, model, apiKey, messages: plan.toSummarize, signal, onReply: (reply) => (billed = reply.usage) });
    const entry = session.appendSafely({
      type: "compaction",
      summary,
      firstKeptEntryId: firstKeptEntryId ?? "",
      tokensBefore: plan.tokensBefore,
      ...(billed ? { usage: billed } : {}),
    });
    if (!entry) throw session.fatal ?? new Error("could not record the compaction");
    agent.state.messages = contextMessages(session.transcript.branch()).messages;
    let usage = session.usage;
    if (billed) usage = addReply(usage, { usage: billed } as never);
    const { contextTokens: _dropped, ...rest } = usage;
    session.addUsage(rest);
    const result = { summary, entryId: entry.id, tokensBefore: plan.tokensBefore, timestamp: entry.timestamp };
    session.emit({ type: "compaction_end", turnId, reason, result });
    return result;
  } catch (error) {
    const aborted = signal?.aborted === true;
    session.emit({ type: "compaction_end", turnId, reason, error: error instanceof Error ? error.message : String(error), aborted });
    return undefined;
  }
}
