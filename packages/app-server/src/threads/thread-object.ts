import type { ClientRequestResult } from "@knightcode/app-server-protocol";

export type ThreadObject = ClientRequestResult<"thread/start">["thread"];
export type ThreadStatus = ThreadObject["status"];
export type ApprovalMode = ThreadObject["approvalMode"];
export type ThinkingLevelName = ThreadObject["thinkingLevel"];

export const APPROVAL_MODES: readonly ApprovalMode[] = ["ask", "autoEdit", "fullAccess"];

/** A stored approval mode, or `ask` when it is missing or not one we know (a gate never fails open). */
export function validApprovalMode(value: unknown, fallback: ApprovalMode = "ask"): ApprovalMode {
  return APPROVAL_MODES.includes(value as ApprovalMode) ? (value as ApprovalMode) : fallback;
}

const NAME_LIMIT = 80;

/** A thread's default name: the first line of its first user message, bounded. */
export function derivedName(firstUserText: string | undefined): string {
  const line = (firstUserText ?? "").split(/\r?\n/).find((l) => l.trim() !== "")?.trim() ?? "";
  const points = [...line];
  return points.length <= NAME_LIMIT ? line : `${points.slice(0, NAME_LIMIT - 1).join("")}…`;
}

export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
