import { boundErrorMessage } from "@knightcode/agent/run/error-kind";
import type { SessionEvent } from "@knightcode/agent/run/events";
import type { Turn } from "@knightcode/app-server-protocol";

/** A finished turn as turn/completed carries it: no items, the error message bounded. */
export function turnSummary(event: Extract<SessionEvent, { type: "turn_end" }>): Turn {
  return {
    id: event.turnId,
    status: event.status,
    startedAt: event.startedAt,
    completedAt: event.completedAt,
    ...(event.status === "failed" && event.error ? { error: { message: boundErrorMessage(event.error.message), kind: event.error.kind } } : {}),
  };
}
