import type { AssistantMessage, ToolCall } from "@mariozechner/pi-ai";

/** The tool through which the model asks the user to review its plan. */
const SUBMIT_PLAN = "submit_plan";

/** What the model is told of a call it made after submit_plan in the same message. */
export const UNHEARD_VERDICT =
  "This call came after submit_plan in the same message, so it did not run: you made it before the user's verdict on the plan. " +
  "Read the verdict, then call it again if it still fits.";

/**
 * Whether `call` comes after a submit_plan call in `message`. The model made
 * such a call before it heard the user's verdict, and an approval even ends
 * plan mode, so the call would run under rules the model never saw. It never
 * runs, whatever the verdict, the approval mode or the grants; the model's
 * next message may make it again. The call is found by identity, as the
 * engine hands over the block itself, so two calls that share an id cannot
 * stand in for each other.
 */
export function followsPlanSubmission(message: AssistantMessage, call: ToolCall): boolean {
  const calls = message.content.filter((part): part is ToolCall => part.type === "toolCall");
  let index = calls.indexOf(call);
  if (index === -1) index = calls.findLastIndex((candidate) => candidate.id === call.id);
  return calls.slice(0, Math.max(index, 0)).some((earlier) => earlier.name === SUBMIT_PLAN);
}
