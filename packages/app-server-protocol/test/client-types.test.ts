/*
 * Written as a client would write it: no casts, only narrowing on `type`,
 * `kind` and method names. Most of the proof is that this file compiles;
 * each `@ts-expect-error` line proves a wrong access is refused, so the file
 * stops compiling if a union stops narrowing (or a type turns into `any`).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import type {
  ApprovalDecision,
  ApprovalRequest,
  ApprovalResponse,
  Dialog,
  DialogResponse,
  EditorDialog,
  ErrorCode,
  HistoryItem,
  Item,
  ItemOf,
  ModelSummary,
  ServerNotificationParams,
  ServerRequestMethod,
  ServerRequestParams,
  ServerRequestResult,
  SelectDialog,
  Thread,
  ThreadSummary,
  TokenUsage,
  Turn,
  UserInputRequest,
  UserInputResponse,
  Warning,
} from "../src/index.js";

/** One line per item type; the switch must be exhaustive or `never` is not reached. */
function describeItem(item: Item): string {
  switch (item.type) {
    case "userMessage":
      return `user: ${item.text} (${item.images?.length ?? 0} images, ${item.comments?.length ?? 0} comments)`;
    case "agentMessage":
      return `agent: ${item.text}`;
    case "reasoning":
      return `thinking: ${item.text}`;
    case "toolCall":
      return `${item.name} [${item.status}] ${item.output ?? ""} ${item.fileChanges?.map((c) => `${c.kind} ${c.path}`).join(", ") ?? ""}`;
    case "compaction":
      return `summary: ${item.summary}`;
    case "extensionMessage":
      return `${item.customType ?? "extension"}: ${item.text}`;
    case "reviewFinding":
      return `${item.severity}: ${item.title} (${item.path}:${item.startLine})`;
    default: {
      const unreachable: never = item;
      return unreachable;
    }
  }
}

function wrongAccesses(item: Item): void {
  // @ts-expect-error: `name` belongs to tool calls only, and `item` is not narrowed yet.
  void item.name;
  if (item.type === "toolCall") {
    void item.name;
    // @ts-expect-error: a tool call has no `text`.
    void item.text;
  }
  if (item.type === "agentMessage") {
    // @ts-expect-error: an agent message has no `status`.
    void item.status;
  }
  // @ts-expect-error: not an item type.
  if (item.type === "toolcall") return;
}

/** History may hold an item moved out of line; `payloadRef` tells it apart, then `type` narrows. */
function describeHistoryItem(item: HistoryItem): string {
  if ("payloadRef" in item) return `${item.type} (${item.payloadRef.bytes} bytes, read with payload/read)`;
  if (item.type === "toolCall") return item.name;
  return describeItem(item);
}

/** The README's example, kept here so it compiles. */
function show(item: HistoryItem): string {
  if ("payloadRef" in item) return `${item.type}: too large, read it with payload/read`;
  if (item.type === "toolCall") return `${item.name} [${item.status}]`;
  if (item.type === "reviewFinding") return `${item.severity}: ${item.title}`;
  return item.type === "compaction" ? item.summary : item.text;
}

function toolCalls(turn: Turn): ItemOf<"toolCall">[] {
  const calls: ItemOf<"toolCall">[] = [];
  for (const item of turn.items ?? []) if (!("payloadRef" in item) && item.type === "toolCall") calls.push(item);
  return calls;
}

/** A server request handler: the method narrows the params and the answer. */
type ServerRequestHandlers = { [M in ServerRequestMethod]: (params: ServerRequestParams<M>) => ServerRequestResult<M> };

const handlers: ServerRequestHandlers = {
  "item/toolCall/requestApproval": (request: ApprovalRequest): ApprovalResponse => {
    const decision: ApprovalDecision = request.decisions.includes("accept") ? "accept" : "decline";
    return { decision, message: `${request.tool} in ${request.threadId}/${request.turnId}` };
  },
  "item/toolCall/requestUserInput": (request: UserInputRequest): UserInputResponse => {
    const answers: NonNullable<UserInputResponse["answers"]> = {};
    for (const question of request.questions) {
      const first = question.options[0];
      answers[question.id] = first ? { label: first.label } : { other: "no options" };
    }
    return { answers };
  },
  "ui/dialog": (dialog: Dialog): DialogResponse => {
    switch (dialog.kind) {
      case "select": {
        const select: SelectDialog = dialog;
        return { value: select.options[0] ?? "" };
      }
      case "confirm":
        return { confirmed: dialog.message.length > 0 };
      case "input":
        return { value: dialog.placeholder ?? "" };
      case "editor": {
        const editor: EditorDialog = dialog;
        return { value: editor.prefill ?? editor.title };
      }
      default: {
        const unreachable: never = dialog;
        return unreachable;
      }
    }
  },
};

function wrongServerRequests(dialog: Dialog, approval: ApprovalRequest): void {
  // @ts-expect-error: only a select dialog has options.
  void dialog.options;
  if (dialog.kind === "confirm") {
    // @ts-expect-error: a confirm dialog is not an editor dialog.
    const editor: EditorDialog = dialog;
    void editor;
  }
  // @ts-expect-error: an approval has no questions.
  void approval.questions;
  // @ts-expect-error: not a decision.
  const decision: ApprovalDecision = "maybe";
  void decision;
}

function onNotification(started: ServerNotificationParams<"item/started">, completed: ServerNotificationParams<"turn/completed">): string {
  const item = started.item;
  const text = "payloadRef" in item ? "" : item.type === "agentMessage" ? item.text : "";
  return `${text} ${completed.turn.status}`;
}

function objects(thread: Thread, summary: ThreadSummary, usage: TokenUsage, model: ModelSummary, warning: Warning, code: ErrorCode): string {
  // @ts-expect-error: not an error code.
  const wrong: ErrorCode = "notAnErrorCode";
  void wrong;
  return [thread.id, thread.model?.provider, summary.id, JSON.stringify(usage), model.id, warning.source, code].join(" ");
}

test("items and server requests narrow without a cast", () => {
  const item: Item = { id: "call-1", type: "toolCall", name: "read", status: "completed", output: "ok" };
  assert.equal(describeItem(item), "read [completed] ok ");
  assert.equal(describeHistoryItem({ id: "1", type: "agentMessage", payloadRef: { id: "p", bytes: 9 } }), "agentMessage (9 bytes, read with payload/read)");
  assert.deepEqual(toolCalls({ id: "t", status: "completed", startedAt: 0, items: [item, { id: "2", type: "agentMessage", text: "hi" }] }), [item]);
  const dialog: Dialog = { threadId: "t", title: "Pick", kind: "select", options: ["a", "b"] };
  assert.deepEqual(handlers["ui/dialog"](dialog), { value: "a" });
  assert.equal(show({ id: "2", type: "agentMessage", text: "hi" }), "hi");
  assert.equal(typeof wrongAccesses, "function");
  assert.equal(typeof wrongServerRequests, "function");
  assert.equal(typeof onNotification, "function");
  assert.equal(typeof objects, "function");
});

test("the published declarations are plain types, not schema-builder generics", () => {
  for (const file of ["types.d.ts", "generated/types.d.ts"]) {
    const text = readFileSync(fileURLToPath(new URL(`../src/${file}`, import.meta.url)), "utf8");
    assert.doesNotMatch(text, /typebox|Static<|TSchema|TObject|TUnion/, file);
  }
});
