import type { ServerRequestParams, ServerRequestResult } from "@knightcode/app-server-protocol";
import type { ScriptedModelServer } from "@knightcode/testkit";
import type { TestClient } from "./harness.js";

export type ApprovalParams = ServerRequestParams<"item/toolCall/requestApproval">;
export type ApprovalAnswer = ServerRequestResult<"item/toolCall/requestApproval">;
export type DialogParams = ServerRequestParams<"ui/dialog">;
export interface ToolCall {
  id: string;
  name: string;
  arguments: unknown;
}

/** A completed tool call as the turn's items carried it. */
export interface CompletedCall {
  id: string;
  status?: string;
  output?: string;
}

/** Answers every approval request on `client` with `decide`, recording each; `off` stops answering. */
export function approver(client: TestClient, decide: (params: ApprovalParams) => ApprovalAnswer) {
  const asked: ApprovalParams[] = [];
  const off = client.client.onRequest("item/toolCall/requestApproval", (params) => {
    asked.push(params);
    return decide(params);
  });
  return { asked, off };
}

/** Answers every ui/dialog on `client` with `answer`, recording each; `off` stops answering. */
export function answerDialogs(client: TestClient, answer: (params: DialogParams) => Record<string, unknown>) {
  const asked: DialogParams[] = [];
  const off = client.client.onRequest("ui/dialog", (params) => {
    asked.push(params);
    return answer(params);
  });
  return { asked, off };
}

let calls = 0;
/** A tool call with an id no other test uses. */
export const toolCall = (name: string, args: unknown): ToolCall => ({ id: `call_${++calls}`, name, arguments: args });

/**
 * One turn whose scripted model makes `toolCalls` and then says "done";
 * answers the turn's completed tool calls by id, with their output text.
 */
export async function toolTurn(
  client: TestClient,
  model: ScriptedModelServer,
  threadId: string,
  toolCalls: ToolCall[],
  timeoutMs = 60_000,
): Promise<Map<string, CompletedCall>> {
  model.enqueue({ toolCalls }, { text: "done" });
  const mark = client.notifications.length;
  await client.request("turn/start", { threadId, text: "go on" });
  const started = await client.waitForNotification("turn/started", (p) => p.threadId === threadId, { since: mark });
  await client.waitForNotification("turn/completed", (p) => p.turn.id === started.turn.id, { since: mark, timeoutMs });
  const found = new Map<string, CompletedCall>();
  for (const params of client.notificationsOf("item/completed")) {
    if (params.turnId !== started.turn.id) continue;
    // A large output comes as a reference: read it, as a client would.
    const item = (await client.client.resolveItem(params.item)) as { id: string; type: string; status?: string; output?: unknown };
    if (item.type === "toolCall")
      found.set(item.id, { id: item.id, ...(item.status ? { status: item.status } : {}), ...(typeof item.output === "string" ? { output: item.output } : {}) });
  }
  return found;
}

/** toolTurn's answer as the status of each completed tool call, by call id. */
export async function toolStatuses(
  client: TestClient,
  model: ScriptedModelServer,
  threadId: string,
  toolCalls: ToolCall[],
): Promise<Map<string, string | undefined>> {
  const calls = await toolTurn(client, model, threadId, toolCalls);
  return new Map([...calls].map(([id, call]) => [id, call.status]));
}
