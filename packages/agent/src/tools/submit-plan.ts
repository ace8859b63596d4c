import type { AgentTool } from "@mariozechner/pi-agent-core";
import { Type, type Static } from "typebox";
import type { ToolContext } from "./context.js";
import { throwIfAborted, ToolError } from "./errors.js";

const submitPlanParameters = Type.Object({
  plan: Type.String({ minLength: 1, description: "The plan in Markdown: the goal, the files to change and how, and how to verify." }),
});

export type SubmitPlanParams = Static<typeof submitPlanParameters>;

/** The user's review of a plan. */
export interface SubmitPlanResult {
  approved: boolean;
  /** What the user wants changed, or any remark with an approval. */
  feedback?: string;
}

export type SubmitPlanHandler = (plan: string, signal?: AbortSignal) => Promise<SubmitPlanResult>;

const DESCRIPTION = `Submit your plan for the user to review before you change anything. Call it once you have read enough \
to propose concrete steps. The result says whether the user approved the plan, with their feedback; \
if not approved, revise the plan and submit it again.`;

export function createSubmitPlanTool(_ctx: ToolContext, submit?: SubmitPlanHandler): AgentTool<typeof submitPlanParameters, SubmitPlanResult> {
  return {
    name: "submit_plan",
    label: "Submit plan",
    description: DESCRIPTION,
    parameters: submitPlanParameters,
    executionMode: "sequential",
    execute: async (_toolCallId, params, signal) => {
      throwIfAborted(signal);
      if (submit === undefined) throw new ToolError("notAvailable", "submit_plan is not available in this session: there is no plan review here.");
      const review = await submit(params.plan, signal);
      const verdict = review.approved ? "The user approved the plan. Carry it out now." : "The user did not approve the plan.";
      const feedback = review.feedback ? `\n\nFeedback: ${review.feedback}` : "";
      return { content: [{ type: "text", text: verdict + feedback }], details: review };
    },
  };
}
