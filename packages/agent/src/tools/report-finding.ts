import type { AgentTool, AgentToolResult } from "@mariozechner/pi-agent-core";
import { Type, type Static } from "typebox";
import type { ReviewSource, SavedFinding } from "@knightcode/schema/review";
import { throwIfAborted } from "./errors.js";

export type { ReviewSource, SavedFinding };

/** The name of the tool a review turn offers: history and the live items know its results by it. */
export const REPORT_FINDING = "report_finding";

const findingParameters = Type.Object({
  path: Type.String({ minLength: 1, maxLength: 4096, description: "The file, as the diff names it (relative to the repository root)." }),
  hunkId: Type.String({ minLength: 1, maxLength: 128, description: "The id of the hunk the problem is in, as its header shows it." }),
  startLine: Type.Integer({ minimum: 1, description: "The first line of the problem, by the new side's line numbers shown in the hunk." }),
  endLine: Type.Integer({ minimum: 1, description: "The last line of the problem (the same as startLine for one line)." }),
  severity: Type.Union([Type.Literal("critical"), Type.Literal("high"), Type.Literal("medium"), Type.Literal("low"), Type.Literal("info")]),
  title: Type.String({ minLength: 1, maxLength: 200, description: "One line naming the problem." }),
  body: Type.String({ minLength: 1, maxLength: 8000, description: "Why it is a problem and what to do about it." }),
  suggestion: Type.Optional(
    Type.String({
      maxLength: 20000,
      description: "The exact text that should replace lines startLine..endLine (all of them, without diff prefixes or line numbers); empty deletes them.",
    }),
  ),
});

export type FindingInput = Static<typeof findingParameters>;

/**
 * Checks a finding against the diff the review showed and keeps it:
 * answers the finding as saved, or throws a ToolError the model reads
 * (a hunk that was not shown, lines outside it).
 */
export type FindingRecorder = (input: FindingInput, toolCallId: string) => SavedFinding;

const DESCRIPTION = `Report one problem you found in the diff under review, on lines of one hunk. Use the hunk id and the \
new-side line numbers the diff shows. Give a suggestion (the replacement text for exactly those lines) when the fix is clear. \
Call it once per problem; a finding on a hunk or lines the diff does not show is refused.`;

/** report_finding over `record`: a review turn offers it, and only a review turn. */
export function createReportFindingTool(record: FindingRecorder): AgentTool {
  const tool: AgentTool<typeof findingParameters, { reviewFinding: SavedFinding }> = {
    name: REPORT_FINDING,
    label: "Report finding",
    description: DESCRIPTION,
    parameters: findingParameters,
    // One call after another: each finding's item takes its place in the turn as the call's would.
    executionMode: "sequential",
    execute: async (toolCallId, params, signal): Promise<AgentToolResult<{ reviewFinding: SavedFinding }>> => {
      throwIfAborted(signal);
      const finding = record(params, toolCallId);
      const where = finding.startLine === finding.endLine ? `line ${finding.startLine}` : `lines ${finding.startLine}-${finding.endLine}`;
      return { content: [{ type: "text", text: `Recorded finding ${finding.findingId} on ${finding.path} ${where}.` }], details: { reviewFinding: finding } };
    },
  };
  return tool as unknown as AgentTool;
}
