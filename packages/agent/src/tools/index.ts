import type { AgentTool } from "@mariozechner/pi-agent-core";
import { createBashTool } from "./bash.js";
import type { ToolContext } from "./context.js";
import { createEditTool } from "./edit.js";
import { createFindTool } from "./find.js";
import { createGrepTool } from "./grep.js";
import { createLsTool } from "./ls.js";
import { createReadTool } from "./read.js";
import { createWriteTool } from "./write.js";

export const BUILTIN_TOOL_NAMES = ["read", "bash", "edit", "write", "grep", "find", "ls"] as const;
export type BuiltinToolName = (typeof BUILTIN_TOOL_NAMES)[number];

/** Tools that need the server to reach a user; created with their handlers. */
export const INTERACTIVE_TOOL_NAMES = ["ask_user", "submit_plan"] as const;

/** The built-in tools of one thread, in BUILTIN_TOOL_NAMES order. */
export function createBuiltinTools(ctx: ToolContext): AgentTool[] {
  return [createReadTool(ctx), createBashTool(ctx), createEditTool(ctx), createWriteTool(ctx), createGrepTool(ctx), createFindTool(ctx), createLsTool(ctx)];
}

export { createAskUserTool, type AskUserAnswer, type AskUserAnswers, type AskUserDetails, type AskUserHandler, type AskUserQuestion } from "./ask-user.js";
export { createBashTool, type BashDetails, type BashToolOptions } from "./bash.js";
export { displayPath, resolveToolPath, type ToolContext } from "./context.js";
export { ProcessGroup, ProcessGroups, type ProcessGroupsOptions, type SignalGroup, type StopTimers } from "@knightcode/system/process/groups";
export { unifiedDiff, type ToolFileChange } from "./diff.js";
export { createEditTool, type EditDetails } from "./edit.js";
export { ToolError, type ToolErrorCode } from "./errors.js";
export { createFindTool, type FindDetails } from "./find.js";
export { createGrepTool } from "./grep.js";
export type { GrepDetails } from "./search/match-printer.js";
export { createLsTool, type LsDetails } from "./ls.js";
export { createReadTool, type ReadDetails } from "./read.js";
export type { SearchToolOptions } from "./search/engine.js";
export { SpillFiles, type SpillFilesOptions } from "./spill-files.js";
export { createSubmitPlanTool, type SubmitPlanHandler, type SubmitPlanResult } from "./submit-plan.js";
export { createWriteTool, type FileChangeDetails } from "./write.js";
