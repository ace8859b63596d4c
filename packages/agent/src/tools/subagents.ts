import type { AgentTool, AgentToolResult } from "@mariozechner/pi-agent-core";
import { Type, type Static } from "typebox";
import type { TokenUsage } from "../run/usage.js";
import { throwIfAborted, ToolError } from "./errors.js";

/** The names of the sub-agent tools, as the model and `defaultTools` see them. */
export const SUBAGENT_TOOLS = ["agent_start", "agent_send", "agent_wait", "agent_close"] as const;

const MAX_TASK = 100_000;
const MAX_WAIT_SECONDS = 3_600;

const agentRef = Type.String({ minLength: 1, maxLength: 256, description: "The sub-agent: the id agent_start answered, or the name you gave it." });

const startParameters = Type.Object({
  task: Type.String({ minLength: 1, maxLength: MAX_TASK, description: "Everything the sub-agent needs to know: it sees none of this conversation." }),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "A short name to refer to it by (unique among your sub-agents)." })),
  model: Type.Optional(Type.String({ minLength: 3, maxLength: 256, description: "provider/id of the model it uses; yours by default." })),
  thinking: Type.Optional(Type.String({ minLength: 1, maxLength: 32, description: "Its thinking level; yours by default." })),
  tools: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { maxItems: 64, description: "Only these of your tools; all of them by default." }),
  ),
  worktree: Type.Optional(Type.Boolean({ description: "Work in a git worktree of its own, so its edits do not touch yours." })),
  wait: Type.Optional(Type.Boolean({ description: "Wait for its answer (the default); false returns at once, and agent_wait collects the answer." })),
});

const sendParameters = Type.Object({
  agent: agentRef,
  message: Type.String({ minLength: 1, maxLength: MAX_TASK, description: "What to tell it: a new task, a correction, an answer." }),
  wait: Type.Optional(Type.Boolean({ description: "Wait for its answer (the default); false returns at once." })),
});

const waitParameters = Type.Object({
  agents: Type.Optional(Type.Array(agentRef, { minItems: 1, maxItems: 64, description: "Which to wait for; every one still working by default." })),
  timeoutSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_WAIT_SECONDS, description: "Give up waiting after this long (they keep working)." })),
});

const closeParameters = Type.Object({ agent: agentRef });

export type SubAgentStart = Static<typeof startParameters>;

/** Where a sub-agent stands, as a tool result reports it. */
export interface SubAgentReport {
  threadId: string;
  name?: string;
  /** `running` only when a wait gave up first. */
  status: "completed" | "interrupted" | "failed" | "running" | "closed";
  /** Its last answer, when it finished one. */
  answer?: string;
  error?: string;
  /** Its usage so far. */
  usage?: TokenUsage;
}

export interface SubAgentCall {
  toolCallId: string;
  signal?: AbortSignal;
}

/**
 * What the host does for the sub-agent tools: every sub-agent is a thread
 * of the host's with this thread as its parent. Rejections with a
 * ToolError reach the model as the call's failure.
 */
export interface SubAgentHandler {
  start(spec: Omit<SubAgentStart, "wait">, call: SubAgentCall): Promise<SubAgentReport>;
  send(agent: string, message: string, call: SubAgentCall): Promise<SubAgentReport>;
  /** Resolves when every one named (or every one working) has finished, the time is up, or `signal` aborts. */
  wait(agents: readonly string[] | undefined, options: { timeoutMs?: number; signal?: AbortSignal }): Promise<SubAgentReport[]>;
  close(agent: string): Promise<SubAgentReport>;
}

type Details = { subagents: SubAgentReport[] };

function reportText(report: SubAgentReport): string {
  const who = report.name ? `${report.name} (${report.threadId})` : report.threadId;
  const usage = report.usage ? ` [tokens in ${report.usage.input}, out ${report.usage.output}, cost $${report.usage.cost.toFixed(4)}]` : "";
  const head = `Sub-agent ${who}: ${report.status}${usage}`;
  if (report.error) return `${head}\nError: ${report.error}`;
  return report.answer !== undefined ? `${head}\n${report.answer}` : head;
}

function result(reports: SubAgentReport[]): AgentToolResult<Details> {
  const text = reports.length === 0 ? "No sub-agent is working." : reports.map(reportText).join("\n\n");
  return { content: [{ type: "text", text }], details: { subagents: reports } };
}

function required(handler: SubAgentHandler | undefined): SubAgentHandler {
  if (handler === undefined) throw new ToolError("notAvailable", "Sub-agents are not available in this session.");
  return handler;
}

const START_DESCRIPTION = `Start a sub-agent: a new thread of its own that works on a task you give it, with your tools \
(or fewer) in this project, and answers when done. Start several at once (several calls in one message) for independent \
parts of the work. By default the call waits and returns its answer; with wait false it returns at once and agent_wait \
collects the answer. The sub-agent sees nothing of this conversation: say everything it needs in the task.`;

/** agent_start, agent_send, agent_wait and agent_close over `handler` (unavailable without one). */
export function createSubAgentTools(handler: SubAgentHandler | undefined): AgentTool[] {
  const start: AgentTool<typeof startParameters, Details> = {
    name: "agent_start",
    label: "Start sub-agent",
    description: START_DESCRIPTION,
    parameters: startParameters,
    executionMode: "parallel",
    execute: async (toolCallId, params, signal) => {
      throwIfAborted(signal);
      const { wait, ...spec } = params;
      const call = { toolCallId, ...(signal ? { signal } : {}) };
      const started = await required(handler).start(spec, call);
      if (wait === false) return result([started]);
      return result(await required(handler).wait([started.threadId], signal ? { signal } : {}));
    },
  };
  const send: AgentTool<typeof sendParameters, Details> = {
    name: "agent_send",
    label: "Message sub-agent",
    description: "Send one of your sub-agents a message: it works on it as its next turn. By default the call waits and returns its answer.",
    parameters: sendParameters,
    executionMode: "parallel",
    execute: async (toolCallId, params, signal) => {
      throwIfAborted(signal);
      const sent = await required(handler).send(params.agent, params.message, { toolCallId, ...(signal ? { signal } : {}) });
      if (params.wait === false) return result([sent]);
      return result(await required(handler).wait([sent.threadId], signal ? { signal } : {}));
    },
  };
  const wait: AgentTool<typeof waitParameters, Details> = {
    name: "agent_wait",
    label: "Wait for sub-agents",
    description: "Wait until the sub-agents named (or all that are working) have finished, and get their answers.",
    parameters: waitParameters,
    executionMode: "parallel",
    execute: async (_toolCallId, params, signal) => {
      throwIfAborted(signal);
      const timeoutMs = params.timeoutSeconds === undefined ? undefined : params.timeoutSeconds * 1000;
      return result(await required(handler).wait(params.agents, { ...(timeoutMs ? { timeoutMs } : {}), ...(signal ? { signal } : {}) }));
    },
  };
  const close: AgentTool<typeof closeParameters, Details> = {
    name: "agent_close",
    label: "Close sub-agent",
    description: "Stop one of your sub-agents (interrupting what it is doing) once you no longer need it. Its thread stays readable.",
    parameters: closeParameters,
    executionMode: "parallel",
    execute: async (_toolCallId, params, signal) => {
      throwIfAborted(signal);
      return result([await required(handler).close(params.agent)]);
    },
  };
  return [start, send, wait, close] as unknown as AgentTool[];
}
