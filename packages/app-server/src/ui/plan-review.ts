import { unattendedMessage } from "../asking/asker.js";
import type { ThreadDialogs } from "./dialogs.js";

const PLAN_APPROVE = "Approve";
const PLAN_REVISE = "Revise";

/** What a plan's review needs of its thread. */
export interface PlanReviewHost {
  readonly dialogs: Pick<ThreadDialogs, "select" | "editor">;
  /** Approval ends plan mode. */
  endPlanMode(): void;
  /** Stops the turn, as Escape does. */
  interrupt(): void;
}

/**
 * submit_plan's review: a select of Approve or Revise, and for Revise an
 * editor for what should change. Approval ends plan mode, so the plan is
 * carried out under the thread's approval mode. A review nobody answers
 * (dismissed, withdrawn, nobody left) stops the turn, as Escape does,
 * rather than have the model submit again and again; one held until nobody
 * came (unattended) stops it too, and the call says nobody was connected.
 */
export async function reviewPlan(host: PlanReviewHost, signal: AbortSignal | undefined): Promise<{ approved: boolean; feedback?: string }> {
  let unattended = false;
  const opts = { ...(signal ? { signal } : {}), onUnattended: () => (unattended = true) };
  const choice = await host.dialogs.select("Review the plan", [PLAN_APPROVE, PLAN_REVISE], opts);
  if (choice === PLAN_APPROVE) {
    host.endPlanMode();
    return { approved: true };
  }
  if (choice === PLAN_REVISE) {
    const feedback = await host.dialogs.editor("What should change in the plan?", "", opts);
    if (feedback !== undefined) return feedback.trim() === "" ? { approved: false } : { approved: false, feedback };
  }
  if (!signal?.aborted) host.interrupt();
  if (unattended) throw new Error(unattendedMessage("the plan review"));
  return { approved: false };
}
