import type { AgentTool } from "@mariozechner/pi-agent-core";
import { createAskUserTool, type AskUserHandler } from "../tools/ask-user.js";
import { createBuiltinTools } from "../tools/index.js";
import { createSubmitPlanTool, type SubmitPlanHandler } from "../tools/submit-plan.js";
import { createSubAgentTools, type SubAgentHandler } from "../tools/subagents.js";
import type { ToolContext } from "../tools/context.js";
import { WEBSEARCH } from "../tools/managed-tools.js";
import { toolEnabled, type ToolsFile } from "../tools/tools-json.js";
import { createWebSearchTool } from "../tools/websearch.js";

export interface ThreadToolsOptions {
  context: ToolContext & { agentDir: string };
  /** ask_user is among the thread's tools only with someone to ask. */
  askUser?: AskUserHandler;
  /** submit_plan likewise, only with someone to review the plan. */
  submitPlan?: SubmitPlanHandler;
  /** The sub-agent tools, only where the host can start sub-agents (never in a sub-agent). */
  subAgents?: SubAgentHandler;
  /** What tools.json switches on, as the thread read it when it loaded. */
  toolsFile: ToolsFile;
}

/**
 * Every tool of ours a thread has, before `defaultTools` chooses among
 * them: the built-ins, the interactive tools it has handlers for, and the
 * tools tools.json switches on. A thread and tool/list build the set here,
 * so the list shows what a thread really has.
 */
export function threadBuiltinTools(options: ThreadToolsOptions): AgentTool[] {
  const { context } = options;
  const tools: AgentTool[] = createBuiltinTools(context);
  if (options.askUser) tools.push(createAskUserTool(context, options.askUser));
  if (options.submitPlan) tools.push(createSubmitPlanTool(context, options.submitPlan));
  if (options.subAgents) tools.push(...createSubAgentTools(options.subAgents));
  if (toolEnabled(options.toolsFile, WEBSEARCH.name, WEBSEARCH.defaultEnabled)) tools.push(createWebSearchTool({ agentDir: context.agentDir }));
  return tools;
}
