import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { ClientRequestResult } from "@knightcode/app-server-protocol";

/** An item as the protocol carries it. */
export type Item = NonNullable<NonNullable<ClientRequestResult<"thread/resume">["turns"][number]["items"]>[number]> & { type: string };
export type ItemOf<T extends string> = Extract<Item, { type: T }>;

type Content = string | { type: string; text?: string; data?: string; mimeType?: string }[];

/** The text parts of a message's content, joined. */
export function contentText(content: Content): string {
  if (typeof content === "string") return content;
  return content
    .filter((part) => part.type === "text")
    .map((part) => part.text ?? "")
    .join("\n");
}

export function contentImages(content: Content): { mimeType: string; data?: string }[] {
  if (typeof content === "string") return [];
  return content.filter((p) => p.type === "image").map((p) => ({ mimeType: p.mimeType ?? "application/octet-stream", ...(p.data ? { data: p.data } : {}) }));
}

/** The item id of a non-tool item: its durable ordinal within the turn. */
export function ordinalId(turnId: string, ordinal: number): string {
  return `${turnId}:${ordinal}`;
}

export function userItem(id: string, index: number, message: Extract<AgentMessage, { role: "user" }>, completedAt: number, clientMessageId?: string): Item {
  const images = contentImages(message.content);
  return {
    id,
    type: "userMessage",
    index,
    completedAt,
    text: contentText(message.content),
    ...(images.length > 0 ? { images } : {}),
    ...(clientMessageId ? { clientMessageId } : {}),
  } as Item;
}

/** A tool result's text, and what its details say about changed files (a malformed report is ignored whole). */
export function toolOutput(result: { content?: unknown; details?: unknown } | undefined): { output: string; fileChanges?: unknown[] } {
  const content = (result?.content ?? []) as Content;
  const parts = typeof content === "string" ? [content] : content.map((p) => (p.type === "text" ? (p.text ?? "") : `[${p.type}]`));
  const changes = (result?.details as { fileChanges?: unknown } | undefined)?.fileChanges;
  const valid =
    Array.isArray(changes) &&
    changes.every(
      (c) =>
        c !== null &&
        typeof c === "object" &&
        typeof (c as { path?: unknown }).path === "string" &&
        ["add", "modify", "delete"].includes((c as { kind?: string }).kind ?? "") &&
        ((c as { diff?: unknown }).diff === undefined || typeof (c as { diff?: unknown }).diff === "string"),
    );
  const fileChanges = valid ? (changes as { path: string; kind: string; diff?: string }[]).map((c) => ({ path: c.path, kind: c.kind, ...(c.diff ? { diff: c.diff } : {}) })) : undefined;
  return { output: parts.join("\n"), ...(fileChanges && fileChanges.length > 0 ? { fileChanges } : {}) };
}

/** How a finished tool call reads, live or saved: its status, output and (unless it failed) file changes. */
export function toolCallOutcome(
  result: { content?: unknown; details?: unknown } | undefined,
  isError: boolean,
  declined: boolean,
): { status: "completed" | "failed" | "declined"; output: string; fileChanges?: unknown[] } {
  const { output, fileChanges } = toolOutput(result);
  return { status: declined ? "declined" : isError ? "failed" : "completed", output, ...(fileChanges && !isError ? { fileChanges } : {}) };
}
