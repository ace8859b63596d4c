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

export type CompactionResult = ({ ok: true } & CompactionOutcome) | { ok: false; error: string; aborted: boolean };

/**
 * Summarizes the older part of the context with the thread's model, records
 * a compaction entry and replaces the live context with the summary and the
 * kept messages. When there was nothing to compact, or it failed or was
 * aborted, the result says why and the transcript is untouched.
 */
export async function runCompaction(options: {
  session: AgentSession;
  agent: Agent;
  reason: CompactionReason;
  signal?: AbortSignal;
  turnId?: string;
}): Promise<CompactionResult> {
  const { session, agent, reason, signal, turnId } = options;
  await session.transcript.loadBranch();
  const { messages, entryIds } = contextMessages(session.transcript.branch());
  const plan = planCompaction(messages, session.settings.compaction.keepRecentTokens);
  session.emit({ type: "compaction_start", turnId, reason });
  if (!plan) {
    const error = "there is nothing to compact yet";
    session.emit({ type: "compaction_end", turnId, reason, error });
    return { ok: false, error, aborted: false };
  }
  // Keeping nothing points past the last entry: the summary alone carries the context on.
  const firstKeptEntryId = entryIds[plan.keepFrom];
  const model = agent.state.model;
  try {
    const apiKey = await session.registry.requireCredentials(model);
    const { ai } = session.engineOrThrow();
    let billed: unknown;
    const summary = await summarize({
      ai,
      model,
      own: session.registry.streamFor(model),
      apiKey,
      messages: plan.toSummarize,
      signal,
      onReply: (reply) => (billed = reply.usage),
    });
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
    return { ok: true, ...result };
  } catch (error) {
    const aborted = signal?.aborted === true;
    const message = error instanceof Error ? error.message : String(error);
    session.emit({ type: "compaction_end", turnId, reason, error: message, aborted });
    return { ok: false, error: message, aborted };
  }
}
