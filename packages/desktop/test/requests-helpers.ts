import type { ServerRequestMethod, ServerRequestParams } from "@knightcode/app-server-protocol";
import type { ScriptedModelServer } from "@knightcode/testkit";
import { waitUntil } from "@knightcode/testkit";
import { WAIT_MS, type DesktopServer } from "./support/desktop.js";

export type ToolCall = { id: string; name: string; arguments: unknown };
let callSeq = 0;
export const call = (name: string, args: unknown): ToolCall => ({ id: `call_${Date.now().toString(36)}_${++callSeq}`, name, arguments: args });

const METHODS: ServerRequestMethod[] = ["item/toolCall/requestApproval", "item/toolCall/requestUserInput", "ui/dialog"];

/**
 * Starts a turn from a Node connection that holds the first question it is
 * asked, then disconnects: the server moves the question to the other
 * subscriber, the page. (The server asks the connection that started the
 * turn first; the page's composer belongs to another part.) Returns what
 * the first connection was asked, so a test can compare the card with it.
 */
export async function askThroughPage(
  server: DesktopServer,
  threadId: string,
  text = "go",
): Promise<{ method: ServerRequestMethod; params: ServerRequestParams<ServerRequestMethod> }> {
  const starter = await server.client();
  let asked: { method: ServerRequestMethod; params: ServerRequestParams<ServerRequestMethod> } | undefined;
  for (const method of METHODS) {
    starter.onRequest(method, (params) => {
      asked ??= { method, params };
      return new Promise<never>(() => undefined);
    });
  }
  await starter.request("turn/start", { threadId, text });
  const first = await waitUntil("the first question of the turn", () => asked, WAIT_MS);
  await starter.close();
  return first;
}

/** The text of the tool result the model was sent for `callId`. */
export function toolResult(model: ScriptedModelServer, callId: string): string | undefined {
  for (const request of model.requests) {
    for (const message of (request.body.messages ?? []) as { role: string; tool_call_id?: string; content: unknown }[]) {
      if (message.role === "tool" && message.tool_call_id === callId) {
        return typeof message.content === "string" ? message.content : JSON.stringify(message.content);
      }
    }
  }
  return undefined;
}

export function waitForToolResult(model: ScriptedModelServer, callId: string): Promise<string> {
  return waitUntil(`the model to get the result of ${callId}`, () => toolResult(model, callId), WAIT_MS);
}
