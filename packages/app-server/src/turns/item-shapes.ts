import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { reviewCommentsOf } from "@knightcode/repo/git/diff/review-comments";
import type { FileChange, ImageRef, ItemOf, SubAgentRef, ToolCallStatus, View } from "@knightcode/app-server-protocol";
import { detailsView } from "../ui/views.js";

/** A message's content as the transcript keeps it: plain text, or parts. */
type Content = string | readonly { type: string; text?: string; data?: string; mimeType?: string }[];

/** The text parts of a message's content, joined. */
export function contentText(content: Content): string {
  if (typeof content === "string") return content;
  return content
    .filter((part) => part.type === "text")
    .map((part) => part.text ?? "")
    .join("\n");
}

export function contentImages(content: Content): ImageRef[] {
  if (typeof content === "string") return [];
  return content.filter((p) => p.type === "image").map((p) => ({ mimeType: p.mimeType ?? "application/octet-stream", ...(p.data ? { data: p.data } : {}) }));
}

/** The item id of a non-tool item: its durable ordinal within the turn. */
export function ordinalId(turnId: string, ordinal: number): string {
  return `${turnId}:${ordinal}`;
}

export function userItem(
  id: string,
  index: number,
  message: Extract<AgentMessage, { role: "user" }>,
  completedAt: number,
  clientMessageId?: string,
): ItemOf<"userMessage"> {
  const images = contentImages(message.content);
  const comments = reviewCommentsOf(message);
  return {
    id,
    type: "userMessage",
    index,
    completedAt,
    text: contentText(message.content),
    ...(images.length > 0 ? { images } : {}),
    ...(comments ? { comments } : {}),
    ...(clientMessageId ? { clientMessageId } : {}),
  };
}

/** An extension message's item; `details.view`, when it is a valid view within 64 KiB, shows with its text. */
export function extensionItem(id: string, index: number, message: Extract<AgentMessage, { role: "custom" }>, completedAt: number): ItemOf<"extensionMessage"> {
  const view = detailsView(message.details);
  return { id, type: "extensionMessage", index, completedAt, text: contentText(message.content), customType: message.customType, ...(view ? { view } : {}) };
}

const FILE_CHANGE_KINDS = { add: true, modify: true, delete: true } satisfies Record<FileChange["kind"], true>;

function isFileChange(value: unknown): value is FileChange {
  if (value === null || typeof value !== "object") return false;
  const change = value as Record<string, unknown>;
  return (
    typeof change.path === "string" &&
    typeof change.kind === "string" &&
    Object.hasOwn(FILE_CHANGE_KINDS, change.kind) &&
    (change.diff === undefined || typeof change.diff === "string")
  );
}

/** A tool result's text, and what its details say about changed files (a malformed report is ignored whole). */
export function toolOutput(result: { content?: unknown; details?: unknown } | undefined): { output: string; fileChanges?: FileChange[] } {
  const content = (result?.content ?? []) as Content;
  const parts = typeof content === "string" ? [content] : content.map((p) => (p.type === "text" ? (p.text ?? "") : `[${p.type}]`));
  const reported = (result?.details as { fileChanges?: unknown } | undefined)?.fileChanges;
  const fileChanges =
    Array.isArray(reported) && reported.every(isFileChange)
      ? reported.map((c) => ({ path: c.path, kind: c.kind, ...(c.diff ? { diff: c.diff } : {}) }))
      : undefined;
  return { output: parts.join("\n"), ...(fileChanges && fileChanges.length > 0 ? { fileChanges } : {}) };
}

/**
 * How a finished tool call reads, live or saved: its status, output, (unless
 * it failed) file changes, and the view its result's `details.view` holds
 * when that is valid and within 64 KiB (the output shows either way).
 */
export function toolCallOutcome(
  result: { content?: unknown; details?: unknown } | undefined,
  isError: boolean,
  declined: boolean,
): { status: Exclude<ToolCallStatus, "inProgress">; output: string; fileChanges?: FileChange[]; view?: View; subagents?: SubAgentRef[] } {
  const { output, fileChanges } = toolOutput(result);
  const view = detailsView(result?.details);
  const subagents = detailsSubagents(result?.details);
  return {
    status: declined ? "declined" : isError ? "failed" : "completed",
    output,
    ...(fileChanges && !isError ? { fileChanges } : {}),
    ...(view ? { view } : {}),
    ...(subagents ? { subagents } : {}),
  };
}

const SUBAGENT_STATUSES: ReadonlySet<string> = new Set(["running", "completed", "interrupted", "failed", "closed"]);

/** The sub-agents a sub-agent tool's result names (details.subagents); a malformed report is ignored whole. */
function detailsSubagents(details: unknown): SubAgentRef[] | undefined {
  const reported = (details as { subagents?: unknown } | undefined)?.subagents;
  if (!Array.isArray(reported) || reported.length === 0) return undefined;
  const refs: SubAgentRef[] = [];
  for (const entry of reported as Array<Record<string, unknown>>) {
    if (typeof entry?.threadId !== "string" || typeof entry.status !== "string" || !SUBAGENT_STATUSES.has(entry.status)) return undefined;
    if (entry.name !== undefined && typeof entry.name !== "string") return undefined;
    refs.push({ threadId: entry.threadId, status: entry.status as SubAgentRef["status"], ...(typeof entry.name === "string" ? { name: entry.name } : {}) });
  }
  return refs;
}
