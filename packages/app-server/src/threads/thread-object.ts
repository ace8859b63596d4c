import { titleFromText } from "@knightcode/agent";
import type { ApprovalMode } from "@knightcode/app-server-protocol";

export const APPROVAL_MODES: readonly ApprovalMode[] = ["ask", "autoEdit", "fullAccess"];

/** A stored approval mode, or `ask` when it is missing or not one we know (a gate never fails open). */
export function validApprovalMode(value: unknown, fallback: ApprovalMode = "ask"): ApprovalMode {
  return APPROVAL_MODES.includes(value as ApprovalMode) ? (value as ApprovalMode) : fallback;
}

/** A thread's default name: the first line of its first message, bounded as listings bound titles. */
export function derivedName(firstUserText: string | undefined): string {
  return titleFromText(firstUserText ?? "");
}

export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
