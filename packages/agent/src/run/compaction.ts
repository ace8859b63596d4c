import type { Api, AssistantMessage, Model } from "@mariozechner/pi-ai";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { PiAi } from "../models/engine.js";
import type { ProviderStream } from "../models/models-json.js";
import { openModelStream } from "../models/provider-stream.js";
import { textOf } from "./messages.js";

export interface CompactionSettings {
  enabled: boolean;
  /** Tokens left free for the next reply; compaction starts when the context would eat into them. */
  reserveTokens: number;
  /** Roughly how many tokens of the most recent conversation are kept verbatim. */
  keepRecentTokens: number;
}

export const DEFAULT_COMPACTION: CompactionSettings = { enabled: true, reserveTokens: 16_384, keepRecentTokens: 20_000 };

const IMAGE_TOKENS = 1_200;
const TOOL_OUTPUT_CHARS_IN_SUMMARY = 2_000;

/** A rough token count (four characters a token); good enough to choose a cut. */
export function estimateTokens(message: AgentMessage): number {
  switch (message.role) {
    case "user":
    case "custom": {
      const content = message.content;
      if (typeof content === "string") return Math.ceil(content.length / 4);
      return content.reduce((sum, part) => sum + (part.type === "text" ? Math.ceil(part.text.length / 4) : IMAGE_TOKENS), 0);
    }
    case "assistant":
      return message.content.reduce((sum, part) => {
        if (part.type === "text") return sum + Math.ceil(part.text.length / 4);
        if (part.type === "thinking") return sum + Math.ceil(part.thinking.length / 4);
        return sum + Math.ceil(JSON.stringify(part.arguments ?? {}).length / 4);
      }, 0);
    case "toolResult":
      return message.content.reduce((sum, part) => sum + (part.type === "text" ? Math.ceil(part.text.length / 4) : IMAGE_TOKENS), 0);
    case "compactionSummary":
      return Math.ceil(message.summary.length / 4);
    default:
      return 0;
  }
}

export function shouldCompact(contextTokens: number | undefined, contextWindow: number, settings: CompactionSettings): boolean {
  if (!settings.enabled || contextTokens === undefined) return false;
  return contextTokens > contextWindow - settings.reserveTokens;
}

export interface CompactionPlan {
  /** Index of the first message kept verbatim. */
  keepFrom: number;
  toSummarize: AgentMessage[];
  tokensBefore: number;
}

/**
 * Chooses where to cut: keep up to `keepRecentTokens` of the latest messages
 * (never more than half of the context, so something is always summarized),
 * starting at a user or assistant message so that a tool result never loses
 * the call it answers. Undefined when there is nothing to summarize.
 */
export function planCompaction(messages: AgentMessage[], keepRecentTokens: number): CompactionPlan | undefined {
  const tokens = messages.map(estimateTokens);
  const tokensBefore = tokens.reduce((a, b) => a + b, 0);
  const budget = Math.min(keepRecentTokens, Math.floor(tokensBefore / 2));
  let kept = 0;
  let cut = messages.length;
  while (cut > 0 && kept + tokens[cut - 1]! <= budget) kept += tokens[--cut]!;
  // Move the cut later to the nearest message that can start a context; keeping nothing is fine.
  while (cut < messages.length && !isCutPoint(messages[cut]!)) cut++;
  const toSummarize = messages.slice(0, cut);
  if (toSummarize.length === 0 || toSummarize.every((m) => m.role === "compactionSummary")) return undefined;
  return { keepFrom: cut, toSummarize, tokensBefore };
}

function isCutPoint(message: AgentMessage): boolean {
  return message.role === "user" || message.role === "assistant" || message.role === "custom";
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n[... ${text.length - max} more characters]`;
}

/** Keeps the start (where the goal is stated) and the most recent part. */
function clipMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.floor(max * 0.3);
  const tail = max - head;
  return `${text.slice(0, head)}\n[... ${text.length - max} characters left out ...]\n${text.slice(text.length - tail)}`;
}

/** The conversation as plain text for the summarizer, long tool outputs cut short. */
export function serializeForSummary(messages: AgentMessage[]): string {
  const lines: string[] = [];
  for (const message of messages) {
    switch (message.role) {
      case "compactionSummary":
        lines.push(`[earlier summary]\n${message.summary}`);
        break;
      case "user":
        lines.push(`[user]\n${textOf(message.content)}`);
        break;
      case "custom":
        lines.push(`[extension ${message.customType}]\n${textOf(message.content)}`);
        break;
      case "assistant":
        for (const part of message.content) {
          if (part.type === "text" && part.text.trim()) lines.push(`[assistant]\n${part.text}`);
          else if (part.type === "toolCall") lines.push(`[tool call ${part.name}] ${clip(JSON.stringify(part.arguments), 1_000)}`);
        }
        break;
      case "toolResult":
        lines.push(`[tool result ${message.toolName}${message.isError ? ", failed" : ""}]\n${clip(textOf(message.content), TOOL_OUTPUT_CHARS_IN_SUMMARY)}`);
        break;
    }
  }
  return lines.join("\n\n");
}

const SUMMARY_SYSTEM_PROMPT = `You compress the history of a coding session so that the assistant can continue the work without it.
Write a faithful, specific summary in Markdown with these sections:
## Goal - what the user wants overall, in their terms.
## Done so far - what was found, decided and changed, with file paths, commands and results that matter.
## Current state - where the work stands, open problems, errors not yet solved.
## Next steps - what the assistant was about to do.
Keep names, paths, numbers and the user's constraints exactly. Leave out chit-chat and anything superseded. Do not invent.`;

/** Asks the model to summarize; throws when the request fails or is aborted. */
export async function summarize(options: {
  ai: PiAi;
  model: Model<Api>;
  /** The model's provider's own stream function, when an extension gave it one. */
  own?: ProviderStream;
  apiKey: string;
  messages: AgentMessage[];
  signal?: AbortSignal;
  /** Receives the reply, for its billing. */
  onReply?: (reply: AssistantMessage) => void;
}): Promise<string> {
  const { ai, model } = options;
  const budget = Math.max(4_000, (model.contextWindow - 8_192) * 3);
  const transcript = clipMiddle(serializeForSummary(options.messages), budget);
  const reply: AssistantMessage = await openModelStream(
    ai,
    options.own,
    model,
    {
      systemPrompt: SUMMARY_SYSTEM_PROMPT,
      messages: [
        {
          role: "user",
          content: [{ type: "text", text: `<conversation>\n${transcript}\n</conversation>\n\nSummarize it as instructed.` }],
          timestamp: Date.now(),
        },
      ],
    },
    { apiKey: options.apiKey, signal: options.signal, maxTokens: Math.min(8_192, model.maxTokens), maxRetries: 0 },
  ).result();
  options.onReply?.(reply);
  if (reply.stopReason === "error" || reply.stopReason === "aborted") {
    throw new Error(reply.errorMessage ?? `summary ${reply.stopReason}`);
  }
  const text = reply.content
    .filter((part) => part.type === "text")
    .map((part) => (part as { text: string }).text)
    .join("\n")
    .trim();
  if (text === "") throw new Error("the model returned an empty summary");
  return text;
}
