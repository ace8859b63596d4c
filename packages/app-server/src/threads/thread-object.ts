import { titleFromText } from "@knightcode/agent";
import type { ApprovalMode } from "@knightcode/app-server-protocol";

/** Every mode the protocol knows; the compiler checks the list is whole. */
const APPROVAL_MODES = { ask: true, autoEdit: true, fullAccess: true } satisfies Record<ApprovalMode, true>;

function isApprovalMode(value: unknown): value is ApprovalMode {
  return typeof value === "string" && Object.hasOwn(APPROVAL_MODES, value);
}

/** A stored approval mode, or `ask` when it is missing or not one we know (a gate never fails open). */
export function validApprovalMode(value: unknown, fallback: ApprovalMode = "ask"): ApprovalMode {
  return isApprovalMode(value) ? value : fallback;
}

/** A thread's default name: the first line of its first message, bounded as listings bound titles. */
export function derivedName(firstUserText: string | undefined): string {
  return titleFromText(firstUserText ?? "");
}

export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
