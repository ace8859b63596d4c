/** The agent run: the loop, its tools, extensions and resources. A thread's runtime loads it; listing and history never need it. */
export {
  AgentSession,
  DEFAULT_RUN_SETTINGS,
  TurnInProgressError,
  type AgentSessionOptions,
  type AfterToolCall,
  type BeforeToolCall,
  type RetrySettings,
  type RunSettings,
  type SessionHooks,
  type ToolCallInfo,
  type TurnInput,
  type TurnResult,
} from "../run/session.js";
export { Turn, type TurnOutcome, type TurnPhase } from "../run/turn.js";
export { SteerQueue, type HeldSteer } from "../run/steer-queue.js";
export { TranscriptWriter } from "../run/transcript-writer.js";
export { TurnController, type TurnControllerOptions, type TurnEngine } from "../turn/controller.js";
export type { QueueState, TurnEnd, TurnLog, TurnObserver } from "../turn/observer.js";
export { PLAIN_TURN_ERRORS, TurnRefusal, type TurnErrors, type TurnRefusalCode } from "../turn/errors.js";
export type { QueuedInput, QueuedView } from "../turn/input-queue.js";
export type { InputSource, ProcessInput, StartMeta, StartOutcome, Waiting } from "../turn/run-record.js";
export { MAX_WAITING_IMAGE_BYTES, MAX_WAITING_INPUTS, MAX_WAITING_TEXT_BYTES } from "../turn/waiting-limits.js";
export type { UnsavedTail } from "../run/unsaved.js";
export type { SessionEvent, SessionListener, CompactionReason } from "../run/events.js";
export { contextMessages, type Transcript, type TranscriptEntry, type TurnEndFields } from "../run/transcript.js";
export { buildSystemPrompt, collectContextFiles, type ContextFile } from "../run/system-prompt.js";
export { emptyUsage, type TokenUsage } from "../run/usage.js";
export { extensionMessage, textOf, userMessage, type CompactionSummaryMessage, type ExtensionMessage } from "../run/messages.js";
export { DEFAULT_COMPACTION, type CompactionSettings } from "../run/compaction.js";
export * from "../tools/index.js";
export { createWebSearchTool, type WebSearchDetails, type WebSearchOptions, type WebSearchParams } from "../tools/websearch.js";
export { classifyToolCall, parseVerdict, type CallClassification, type CallToClassify } from "../approvals/classifier.js";
export { ExtensionHost, extensionName, type CommandRun, type ExtensionHostDeps, type ExtensionSpec } from "../extensions/host.js";
export { extensionRunHooks, runInputHooks, type ExtensionRunHooks } from "../extensions/session-hooks.js";
export { silentUI } from "../extensions/silent-ui.js";
export type * from "../extensions/types.js";
export {
  RESOURCE_TYPES,
  ResourceError,
  discoverResources,
  planResourceToggle,
  type ToggleRequest,
  parseFrontmatter,
  loadSkill,
  readSkillHeader,
  renderSkillsSection,
  skillCommandMessage,
  expandPromptTemplate,
  loadPromptTemplate,
  parseSlashInput,
  splitArgs,
  expandSlashInput,
  listCommands,
  SKILL_COMMAND_PREFIX,
  projectBase,
  projectResourcePaths,
  scopeBase,
  type PackageEntry,
  type Resource,
  type ResourceErrorCode,
  type ResourceScope,
  type ResourceSettings,
  type ResourceType,
  type ResourceWarning,
  type ScopedSettings,
  type DiscoveryResult,
  type Skill,
  type CommandInfo,
  codePathOf,
  settingsCodePaths,
  trustedProjectsAbove,
  type CodePath,
  type CodePathOptions,
} from "../resources/index.js";
export { resolveDefaultTools, selectTools, DEFAULT_ACTIVE_TOOLS } from "../thread/tool-selection.js";
export { threadDiscoveryOptions } from "../thread/thread-resources.js";
