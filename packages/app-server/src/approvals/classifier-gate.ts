import type { CallClassification } from "@knightcode/agent/approvals/classifier";
import type { ToolCallInfo } from "@knightcode/agent/run/session-options";

/** How much of a call's input the confirmation shows; the transcript item has all of it. */
export const MAX_SHOWN_INPUT = 1_000;

/** A shell call shows its command; any other call its input as JSON. Cut past the bound. */
function shownInput(args: unknown): string {
  const command = (args as { command?: unknown } | null)?.command;
  let text: string;
  if (typeof command === "string") {
    text = command;
  } else {
    try {
      text = JSON.stringify(args) ?? "null";
    } catch {
      text = String(args);
    }
  }
  return text.length <= MAX_SHOWN_INPUT ? text : `${text.slice(0, MAX_SHOWN_INPUT)}... (${text.length - MAX_SHOWN_INPUT} more characters)`;
}

/** The confirm dialog for a call the classifier judged risky or could not judge: the call and the reason. */
export function confirmation(call: ToolCallInfo, judged: CallClassification): { title: string; message: string } {
  const why =
    judged.verdict === "risky"
      ? `The safety classifier judged this ${call.toolName} call risky: ${judged.reason}`
      : `The safety classifier could not judge this ${call.toolName} call: ${judged.reason}`;
  return { title: `Run ${call.toolName}?`, message: `${why}\n\n${call.toolName}: ${shownInput(call.args)}` };
}

/** The tool error the model gets for a call the user did not confirm. */
export function unconfirmedReason(judged: CallClassification): string {
  return judged.verdict === "risky"
    ? `The user did not confirm this tool call, which the safety classifier judged risky: ${judged.reason}`
    : `The user did not confirm this tool call; the safety classifier could not judge it: ${judged.reason}`;
}
