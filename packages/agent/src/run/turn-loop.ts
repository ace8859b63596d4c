import type { Agent, AgentMessage } from "@mariozechner/pi-agent-core";
import { classifyError, isTransient, turnFailureMessage, type TurnError } from "./error-kind.js";
import { shouldCompact } from "./compaction.js";
import { userMessage } from "./messages.js";
import type { AgentSession } from "./session.js";
import type { RetrySettings, SessionHooks, TurnInput } from "./session-options.js";
import type { TurnRecord } from "./turn.js";

export interface TurnLoopContext {
  session: AgentSession;
  agent: Agent;
  turn: TurnRecord;
  input: TurnInput;
  hooks?: SessionHooks;
}

/** Exponential backoff, capped. */
export function retryDelay(settings: RetrySettings, attempt: number): number {
  return Math.min(settings.maxRetryDelayMs, settings.baseDelayMs * 2 ** (attempt - 1));
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

function lastAssistantError(agent: Agent): string | undefined {
  const last = agent.state.messages[agent.state.messages.length - 1];
  if (last?.role !== "assistant" || last.stopReason !== "error") return undefined;
  return last.errorMessage ?? "the model request failed";
}

/** Drops the failed reply from the live context so the next attempt continues from the input. */
function dropFailedReply(agent: Agent): void {
  agent.state.messages = agent.state.messages.slice(0, -1);
}

/**
 * One turn's agent runs: compaction first when the context is too full, the
 * prompt, then as many continuations as retries, overflow recovery and
 * undelivered steers need. Returns the turn's error, if it failed.
 */
export async function runTurnLoop(context: TurnLoopContext): Promise<TurnError | undefined> {
  const { session, agent, turn, input } = context;
  if (input.compactOnly) {
    const result = await session.compactionFor("manual", agent, turn.signal);
    turn.settle();
    return result.ok || turn.interrupted ? undefined : { message: result.error, kind: "other" };
  }
  return runAgentTurn(context);
}

/** Marks the turn as ending, in the same step as the decision: no input can slip in after it. */
function settle(turn: TurnRecord, error?: TurnError): TurnError | undefined {
  turn.settle();
  return error;
}

async function runAgentTurn({ session, agent, turn, input, hooks }: TurnLoopContext): Promise<TurnError | undefined> {
  const signal = turn.signal;
  const model = agent.state.model;
  if (shouldCompact(session.usage.contextTokens, model.contextWindow, session.settings.compaction)) {
    await session.compactionFor("threshold", agent, signal);
  }
  if (turn.interrupted) return settle(turn);
  const prompt: AgentMessage[] = [
    ...(input.preamble ?? []),
    ...(input.text !== undefined ? [userMessage(input.text, input.images, Date.now(), input.comments)] : []),
    ...(input.messages ?? []),
  ];
  agent.state.systemPrompt = session.baseSystemPrompt;
  if (hooks?.beforeAgentStart) {
    const extra = await hooks.beforeAgentStart({ prompt: input.text ?? "", images: input.images ?? [], systemPrompt: session.baseSystemPrompt });
    if (turn.interrupted) return settle(turn);
    prompt.push(...extra.messages);
    if (extra.systemPrompt !== undefined) agent.state.systemPrompt = extra.systemPrompt;
  }
  await agent.prompt(prompt);
  let attempt = 0;
  let recoveredOverflow = false;
  for (;;) {
    if (turn.interrupted || session.fatal) return settle(turn, session.fatal ? { message: session.fatal.message, kind: "other" } : undefined);
    const failure = lastAssistantError(agent);
    if (failure !== undefined) {
      const kind = classifyError(failure);
      if (kind === "contextOverflow" && !recoveredOverflow && session.settings.compaction.enabled) {
        recoveredOverflow = true;
        dropFailedReply(agent);
        const compacted = await session.compactionFor("overflow", agent, signal);
        if (!compacted.ok || turn.interrupted) return settle(turn, turn.interrupted ? undefined : { message: failure, kind });
        await agent.continue();
        continue;
      }
      const retry = session.settings.retry;
      if (isTransient(kind) && retry.enabled && attempt < retry.maxRetries) {
        attempt++;
        const delayMs = retryDelay(retry, attempt);
        session.emit({ type: "retry", turnId: turn.id!, attempt, maxAttempts: retry.maxRetries, delayMs, error: { message: failure, kind } });
        await sleep(delayMs, signal);
        if (turn.interrupted) return settle(turn);
        dropFailedReply(agent);
        await agent.continue();
        continue;
      }
      return settle(turn, { message: turnFailureMessage(failure, kind, attempt + 1, agent.state.model.baseUrl), kind });
    }
    if (session.steers.hasAccepted) {
      // A steer accepted as the run was ending still belongs to this turn.
      await agent.continue();
      continue;
    }
    return settle(turn);
  }
}
