import type { AskUserAnswers, AskUserQuestion } from "@knightcode/agent/tools/ask-user";
import { type Asker, unattendedMessage } from "../asking/asker.js";
import { interpretUserInput, questionsForWire } from "./dialogs.js";

/** What ask_user needs of its thread. */
export interface AskUserHost {
  readonly threadId: string;
  readonly asker: Asker;
  runningTurnId(): string | undefined;
  /** Stops the turn, as Escape does. */
  interrupt(): void;
}

/**
 * ask_user's questions, all at once, to one subscriber at a time. `{}`
 * (or nobody left to ask) dismisses them and stops the turn, as Escape
 * does; a request held until nobody came (unattended) stops it too and
 * fails the call saying so; an answer that is not one the questions allow fails the call and
 * says why, and the turn goes on.
 */
export async function askUser(
  host: AskUserHost,
  questions: AskUserQuestion[],
  call: { toolCallId: string; signal?: AbortSignal },
): Promise<AskUserAnswers | undefined> {
  const outcome = await host.asker.ask(
    "item/toolCall/requestUserInput",
    { threadId: host.threadId, turnId: host.runningTurnId() ?? "", itemId: call.toolCallId, questions: questionsForWire(questions) },
    { kind: "dialog", ...(call.signal ? { signal: call.signal } : {}) },
  );
  if (outcome.kind === "refused") throw new Error("The user's client could not show the questions (it answered with an error).");
  if (outcome.kind === "unattended") {
    // Stopped as a dismissal stops it, but the call says nobody was there rather than that the user dismissed it.
    if (!call.signal?.aborted) host.interrupt();
    throw new Error(unattendedMessage("the questions"));
  }
  const reply = outcome.kind === "answered" ? interpretUserInput(outcome.result, questions) : ({ kind: "dismissed" } as const);
  if (reply.kind === "invalid") throw new Error(`The user's answer was refused: ${reply.reason}. Ask again if you still need it.`);
  if (reply.kind === "answers") return reply.answers;
  if (!call.signal?.aborted) host.interrupt();
  return undefined;
}
