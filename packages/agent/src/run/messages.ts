import type { ImageContent, Message, TextContent } from "@mariozechner/pi-ai";
import type { AgentMessage } from "@mariozechner/pi-agent-core";

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

export const SUMMARY_PREFIX =
  "The earlier part of this conversation was compacted. This summary of it was written for you to carry on the work:\n\n";

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
      default:
        out.push(message);
    }
  }
  return out;
}

export function userMessage(text: string, images: ImageContent[] = [], timestamp = Date.now()): Message {
  const content: (TextContent | ImageContent)[] = [{ type: "text", text }, ...images];
  return { role: "user", content, timestamp };
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
