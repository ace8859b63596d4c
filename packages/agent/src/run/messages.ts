import type { ImageContent, Message, TextContent } from "@mariozechner/pi-ai";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { formatReviewComments, reviewCommentsOf, type ReviewComment } from "@knightcode/repo/git/diff/review-comments";

/** Messages of our own in the agent's context, beside the LLM's user/assistant/toolResult. */
export interface CompactionSummaryMessage {
  role: "compactionSummary";
  summary: string;
  timestamp: number;
}

/** A message an extension put into the conversation; the model sees it as user input. */
export interface ExtensionMessage {
  role: "custom";
  customType: string;
  content: string | (TextContent | ImageContent)[];
  display: boolean;
  details?: unknown;
  timestamp: number;
}

declare module "@mariozechner/pi-agent-core" {
  interface CustomAgentMessages {
    compactionSummary: CompactionSummaryMessage;
    custom: ExtensionMessage;
  }
}

export const SUMMARY_PREFIX = "The earlier part of this conversation was compacted. This summary of it was written for you to carry on the work:\n\n";

/** What the model sees of our context: our own messages become user messages. */
export function toLlmMessages(messages: AgentMessage[]): Message[] {
  const out: Message[] = [];
  for (const message of messages) {
    switch (message.role) {
      case "compactionSummary":
        out.push({ role: "user", content: [{ type: "text", text: SUMMARY_PREFIX + message.summary }], timestamp: message.timestamp });
        break;
      case "custom":
        out.push({ role: "user", content: message.content, timestamp: message.timestamp });
        break;
      case "user": {
        const comments = reviewCommentsOf(message);
        if (!comments) {
          out.push(message);
          break;
        }
        const parts = typeof message.content === "string" ? [{ type: "text" as const, text: message.content }] : message.content;
        out.push({ role: "user", content: [...parts, { type: "text", text: formatReviewComments(comments) }], timestamp: message.timestamp });
        break;
      }
      default:
        out.push(message);
    }
  }
  return out;
}

/**
 * The user's input as a message. Review comments ride on the message as
 * `comments`: saved with it (the user item shows them), and sent to the
 * model after its text (toLlmMessages).
 */
export function userMessage(text: string, images: ImageContent[] = [], timestamp = Date.now(), comments: readonly ReviewComment[] = []): Message {
  const content: (TextContent | ImageContent)[] = [{ type: "text", text }, ...images];
  if (comments.length === 0) return { role: "user", content, timestamp };
  const message = { role: "user" as const, content, timestamp, comments: [...comments] };
  return message;
}

/** The text of a user or extension message's content. */
export function textOf(content: string | (TextContent | ImageContent)[]): string {
  if (typeof content === "string") return content;
  return content
    .filter((part): part is TextContent => part.type === "text")
    .map((part) => part.text)
    .join("\n");
}

/** An extension's `sendMessage` input as the message the model sees; shown unless it says otherwise. */
export function extensionMessage(input: {
  customType: string;
  content: string | (TextContent | ImageContent)[];
  display?: boolean;
  details?: unknown;
}): ExtensionMessage {
  return {
    role: "custom",
    customType: input.customType,
    content: input.content,
    display: input.display !== false,
    ...(input.details === undefined ? {} : { details: input.details }),
    timestamp: Date.now(),
  };
}
