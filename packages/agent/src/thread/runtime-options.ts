import type { SubAgentHandler } from "../tools/subagents.js";
import type { ExtensionFactoryCache } from "../extensions/factory-cache.js";
import type { ExtensionSpec } from "../extensions/host-deps.js";
import type { ExtensionMode, ExtensionUI } from "../extensions/types.js";
import type { ModelRegistry } from "../models/registry.js";
import type { ServerSecrets } from "@knightcode/system/process/child-env";
import type { BeforeToolCall, RunSettings } from "../run/session-options.js";
import type { Transcript } from "../run/transcript.js";
import type { TranscriptWriter } from "../run/transcript-writer.js";
import type { EffectiveSettings } from "../settings/catalogue.js";
import type { AskUserHandler } from "../tools/ask-user.js";
import type { TrustStore } from "../trust/store.js";
import type { TurnController } from "../turn/controller.js";
import type { Warning } from "@knightcode/system/warning";

/** What every thread of a process shares. */
export interface ThreadEnvironment {
  agentDir: string;
  registry: ModelRegistry;
  trust: TrustStore;
  /** `-e` paths: explicitly trusted, loaded in every thread. */
  extensionPaths: readonly string[];
  builtinExtensions?: readonly ExtensionSpec[];
  /** One per process, so threads loading the same extension file read and transform it once. */
  extensionFactories?: ExtensionFactoryCache;
  /** The server's environment; what child processes get is built from it (childEnvironment). */
  env: NodeJS.ProcessEnv;
  /** What the server keeps from the model and from child processes besides provider keys: its WebSocket token. */
  secrets?: ServerSecrets;
  log?: (line: string) => void;
}

export interface ThreadRuntimeOptions {
  environment: ThreadEnvironment;
  threadId: string;
  cwd: string;
  transcript: Transcript;
  mode: ExtensionMode;
  hasUI: boolean;
  ui: ExtensionUI;
  /** Problems after loading (an extension's handler failed): the thread reports them to its subscribers. */
  onWarning(warning: Warning): void;
  /** Tools or commands changed after loading. */
  onChanged?(): void;
  /**
   * The approval gate, run after extensions' tool_call handlers. Without
   * one every call is refused: a thread that means to run every call says
   * so with `allowAllToolCalls`. A gate built on the runtime replaces it
   * with useApprovalGate.
   */
  approvalGate?: BeforeToolCall;
  /** The owner of the thread's turns, made before the runtime so that what the runtime is built with can ask it; the runtime makes its own when absent. */
  turns?: TurnController;
  /** What writes the transcript, made before the runtime; the session makes its own when absent. */
  writer?: TranscriptWriter;
  /** Whether plan mode is on: asked whenever the tools are chosen (applyToolSelection). */
  planMode?(): boolean;
  /** ask_user's questions to the thread's user; offered to the model only with a UI. */
  askUser?: AskUserHandler;
  /** A command's ctx.newSession(): replaces the thread, resolving to the new one's id. Without it, newSession rejects. */
  newSession?(): Promise<string>;
  submitPlan?: (plan: string, signal?: AbortSignal) => Promise<{ approved: boolean; feedback?: string }>;
  /** Starts and drives sub-agents for the sub-agent tools; a thread without it (a sub-agent) has none of them. */
  subAgents?: SubAgentHandler;
  /** Only these tools are ever offered (a sub-agent started with a subset of its parent's); every tool its settings choose without it. */
  onlyTools?: readonly string[];
  /** How the thread's commands are contained (see ThreadSandbox); without it they run unsandboxed. */
  sandboxing?: ThreadSandboxing;
}

/** What the server decides about the thread's sandbox, asked at each command. */
export interface ThreadSandboxing {
  /** Where writes may land: the whole worktree of a worktree thread; the thread's folder otherwise. */
  folder?: string;
  /** The thread runs without the sandbox (`fullAccess`). */
  unsandboxed(): boolean;
  /** The user let this call, or every call of the thread, use the network. */
  networkGranted(callId: string | undefined): boolean;
}

/** The run settings a thread's effective settings give. */
export function runSettingsFrom(effective: EffectiveSettings): RunSettings {
  const retry = effective.retry.provider;
  return {
    retry: { enabled: retry.enabled, maxRetries: retry.maxRetries, baseDelayMs: retry.baseDelayMs, maxRetryDelayMs: retry.maxRetryDelayMs },
    compaction: { ...effective.compaction },
    streamIdleTimeoutMs: retry.streamIdleTimeoutMs,
    interruptGraceMs: effective.interruptGraceMs,
  };
}
