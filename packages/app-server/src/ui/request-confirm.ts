import type { Connection } from "../rpc/connection.js";
import type { Asker } from "../asking/asker.js";
import { confirmAnswer, dialogText } from "./dialogs.js";

/**
 * Asks the thread's user a yes-or-no question for a request `connection`
 * made (a `ui/dialog` confirm): that connection first when it is
 * subscribed, else the thread's other subscribers, moved and withdrawn as
 * every question is. Only `{confirmed: true}` is yes; a dismissal, a
 * closed connection or nobody to ask is no.
 */
export async function confirmForRequest(
  thread: { readonly id: string; readonly asker: Asker },
  connection: Connection,
  question: { title: string; message: string },
  signal: AbortSignal,
): Promise<boolean> {
  const outcome = await thread.asker.ask(
    "ui/dialog",
    { threadId: thread.id, kind: "confirm", title: question.title, message: dialogText(question.message) },
    { kind: "dialog", signal, prefer: connection },
  );
  return confirmAnswer(outcome);
}
