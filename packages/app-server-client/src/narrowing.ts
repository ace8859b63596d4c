import type { ApprovalRequest, BuiltinTool, HistoryItem, Item, ItemReference, ToolApprovalRequest } from "@knightcode/app-server-protocol";

/**
 * Whether a history item came by reference (`{id, type, index?, payloadRef}`,
 * too large to send inline) rather than inline. Its `type` alone cannot say:
 * a reference carries the type of the item it stands for, so that a client
 * can skip what it does not show without reading it. Only a reference has
 * `payloadRef`; `client.resolveItem` reads it back.
 */
export function isItemReference(item: HistoryItem): item is ItemReference {
  return "payloadRef" in item;
}

/** Whether a history item came inline; `type` then narrows it to one item's fields. */
export function isInlineItem(item: HistoryItem): item is Item {
  return !isItemReference(item);
}

type FieldKind = "string" | "array";

/** The fields each built-in tool cannot run without, by kind: what the guard checks of an inline input. */
const REQUIRED: { readonly [T in BuiltinTool]: Readonly<Record<string, FieldKind>> } = {
  bash: { command: "string" },
  read: { path: "string" },
  write: { path: "string", content: "string" },
  edit: { path: "string", oldText: "string", newText: "string" },
  ls: {},
  grep: { pattern: "string" },
  find: { pattern: "string" },
  websearch: { query: "string" },
  submit_plan: { plan: "string" },
  ask_user: { questions: "array" },
};

/**
 * Whether an approval request is about our built-in tool `tool`; its
 * `input` is then typed as that tool's (`ApprovalInput<T>`). An inline input
 * must have the tool's required fields, so an extension's tool that took
 * the name with another shape is not mistaken for ours; a large input
 * comes as `inputRef` and is not checked.
 */
export function isToolApproval<T extends BuiltinTool>(request: ApprovalRequest, tool: T): request is ApprovalRequest & ToolApprovalRequest<T> {
  if (request.tool !== tool) return false;
  if (request.input === undefined) return true;
  const input = request.input;
  if (typeof input !== "object" || input === null || Array.isArray(input)) return false;
  return Object.entries(REQUIRED[tool]).every(([field, kind]) => {
    const value = (input as Record<string, unknown>)[field];
    return kind === "array" ? Array.isArray(value) : typeof value === kind;
  });
}
