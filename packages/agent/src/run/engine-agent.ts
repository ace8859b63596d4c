import type { Api, Model, ModelThinkingLevel } from "@mariozechner/pi-ai";
import type { Agent, AgentEvent, AgentMessage, AgentTool } from "@mariozechner/pi-agent-core";
import type { Engine } from "../models/engine.js";
import type { ModelRegistry } from "../models/registry.js";
import { toLlmMessages } from "./messages.js";
import { followsPlanSubmission, UNHEARD_VERDICT } from "./plan-verdict.js";
import type { AfterToolCall, BeforeToolCall, RunSettings, SessionHooks } from "./session-options.js";
import { stallGuardedStream } from "./stall-guard.js";

/** What one engine agent of a thread starts from, and where what it does goes. */
export interface EngineAgentSetup {
  engine: Engine;
  threadId: string;
  model: Model<Api>;
  thinkingLevel: ModelThinkingLevel;
  systemPrompt: string;
  tools: AgentTool[];
  /** The model's context: the transcript's branch. */
  messages: AgentMessage[];
  registry: ModelRegistry;
  settings: RunSettings;
  beforeToolCall?: BeforeToolCall;
  afterToolCall?: AfterToolCall;
  hooks?: SessionHooks;
  /** Agents left behind by a turn that did not stop in time: what they still do is ignored. */
  abandoned: WeakSet<Agent>;
  onEvent(event: AgentEvent): void;
}

/** A pi-agent-core Agent for the thread, its tool calls going through the plan verdict check, extensions and the approval gate. */
export function createEngineAgent(setup: EngineAgentSetup): Agent {
  const { engine, registry, settings, abandoned } = setup;
  const agent = new engine.core.Agent({
    initialState: { systemPrompt: setup.systemPrompt, model: setup.model, thinkingLevel: setup.thinkingLevel, tools: setup.tools, messages: setup.messages },
    convertToLlm: toLlmMessages,
    streamFn: stallGuardedStream(engine.ai, settings.streamIdleTimeoutMs, (m) => registry.streamFor(m), settings.maxReplyBytes),
    getApiKey: (provider) => registry.apiKey(provider),
    sessionId: setup.threadId,
    steeringMode: "all",
    beforeToolCall: async ({ assistantMessage, toolCall, args }, signal) => {
      if (abandoned.has(agent)) return { block: true, reason: "The turn this call belonged to has ended." };
      // Ahead of extensions and the approval gate: nobody is asked about a call the model made before it heard the plan's verdict.
      if (followsPlanSubmission(assistantMessage, toolCall)) return { block: true, reason: UNHEARD_VERDICT };
      const gate = setup.beforeToolCall;
      return gate ? gate({ toolCallId: toolCall.id, toolName: toolCall.name, args }, signal) : undefined;
    },
    afterToolCall: async ({ toolCall, args, result, isError }, signal) => {
      const after = setup.afterToolCall;
      return after ? after({ toolCallId: toolCall.id, toolName: toolCall.name, args, result, isError }, signal) : undefined;
    },
  });
  agent.subscribe((event) => {
    if (abandoned.has(agent)) return;
    setup.onEvent(event);
    return setup.hooks?.onAgentEvent?.(event);
  });
  return agent;
}
