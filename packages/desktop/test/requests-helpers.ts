import type { ServerRequestMethod, ServerRequestParams } from "@knightcode/app-server-protocol";
import type { ScriptedModelServer } from "@knightcode/testkit";
import type { Page } from "playwright-core";
import { waitUntil, waitUntilAsync } from "@knightcode/testkit";
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
  // A turn/start while the last turn is still ending (its end being made durable) is refused with turnInProgress.
  await waitUntilAsync(
    "the thread's last turn to end",
    async () => (await starter.request("thread/read", { threadId })).thread.status.type !== "active",
    WAIT_MS,
  );
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

/**
 * Records, for each request card the page adds from now on, whether the
 * keyboard was already in it when the page's change that drew it ended (a
 * mutation observer runs right after that change, before any key or frame
 * can come between). Read it back with `cardsFocusedOnArrival`.
 */
export async function watchCardFocus(page: Page): Promise<void> {
  await page.evaluate(() => {
    const seen: { title: string; focused: boolean }[] = [];
    (window as unknown as { cardFocus: typeof seen }).cardFocus = seen;
    new MutationObserver((records) => {
      for (const record of records) {
        for (const node of record.addedNodes) {
          if (!(node instanceof Element)) continue;
          const cards = node.matches("[data-request-id]") ? [node] : Array.from(node.querySelectorAll("[data-request-id]"));
          for (const card of cards) seen.push({ title: card.querySelector("h2")?.textContent ?? "", focused: card.contains(document.activeElement) });
        }
      }
    }).observe(document.body, { childList: true, subtree: true });
  });
}

/** What `watchCardFocus` recorded: each card's title, and whether it had the keyboard as it appeared. */
export function cardsFocusedOnArrival(page: Page): Promise<{ title: string; focused: boolean }[]> {
  return page.evaluate(() => (window as unknown as { cardFocus: { title: string; focused: boolean }[] }).cardFocus);
}
