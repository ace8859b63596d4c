export type { Warning } from "./warning.js";

export { FileLock, LockHeldError, type LockHolder } from "./fs/file-lock.js";
export { writeFileAtomic, writeFileAtomicAsync, type AtomicWriteOptions } from "./fs/atomic-write.js";
export { withFileLock } from "./fs/file-queue.js";

export { loadEngine, warmEngine, engineIfLoaded, type Engine } from "./models/engine.js";
export { ModelError, type ModelErrorCode } from "./models/errors.js";
export { ModelRegistry, type ModelRef, type ModelSummary, type ModelSource } from "./models/registry.js";
export { AuthStore, type Credential } from "./models/auth-store.js";
export { readModelsFile, type CustomProvider, type ModelsFileWarning } from "./models/models-json.js";

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
} from "./run/session.js";
export { Turn, type TurnOutcome, type TurnPhase } from "./run/turn.js";
export type { SessionEvent, SessionListener, CompactionReason } from "./run/events.js";
export { classifyError, isTransient, boundErrorMessage, type ErrorKind, type TurnError } from "./run/error-kind.js";
export { contextMessages, type Transcript, type TranscriptEntry, type TurnEndFields, type TurnStatus } from "./run/transcript.js";
export { buildSystemPrompt, collectContextFiles, type ContextFile } from "./run/system-prompt.js";
export { emptyUsage, type TokenUsage } from "./run/usage.js";
export { extensionMessage, textOf, userMessage, type CompactionSummaryMessage, type ExtensionMessage } from "./run/messages.js";
export { DEFAULT_COMPACTION, type CompactionSettings } from "./run/compaction.js";

export * from "./tools/index.js";

export { ExtensionHost, extensionName, type ExtensionHostDeps, type ExtensionSpec } from "./extensions/host.js";
export { extensionRunHooks, runInputHooks, type ExtensionRunHooks } from "./extensions/session-hooks.js";
export { silentUI } from "./extensions/silent-ui.js";
export type * from "./extensions/types.js";

export * from "./settings/read.js";
export * from "./settings/write.js";
export * from "./settings/store.js";
export * from "./settings/errors.js";
export * from "./settings/scope.js";
export {
  SETTINGS_CATALOGUE,
  CATALOGUE_ENTRIES,
  settingsDefaults,
  THINKING_LEVELS,
  APPROVAL_MODES,
  type EffectiveSettings,
  type ThinkingLevel,
  type ApprovalMode,
} from "./settings/catalogue.js";
export { SETTING_MIGRATIONS } from "./settings/migrations.js";
export * from "./trust/store.js";
export * from "./trust/resources.js";
export * from "./trust/errors.js";
export { analyzeShellCommand, formatPrefix, prefixCovers, MAX_ANALYZED_COMMAND_LENGTH, type ShellKind, type ShellPrefixAnalysis } from "./approvals/shell-prefix.js";
export {
  RESOURCE_TYPES,
  ResourceError,
  discoverResources,
  planResourceToggle,
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
} from "./resources/index.js";
export * from "./session/index.js";
export { ThreadRuntime, allowAllToolCalls, type ThreadEnvironment, type ThreadRuntimeOptions, type InputOutcome, type TurnOwnerView } from "./thread/runtime.js";
export { resolveDefaultTools, selectTools, DEFAULT_ACTIVE_TOOLS } from "./thread/tool-selection.js";
export * from "./listing/index.js";
export { ExtensionFactoryCache, ExtensionLoadError, type ExtensionFactoryCacheOptions, type FactoryCacheCounts, type FactoryLease } from "./extensions/factory-cache.js";
