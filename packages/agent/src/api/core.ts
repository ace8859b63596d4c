/** What the server needs to find, list, read, own and configure threads; never the agent run itself. */
export type { Warning } from "../warning.js";
export { FileLock, LockHeldError, type LockHolder } from "../fs/file-lock.js";
export { writeFileAtomic, writeFileAtomicAsync, type AtomicWriteOptions } from "../fs/atomic-write.js";
export { withFileLock } from "../fs/file-queue.js";
export { loadEngine, warmEngine, engineIfLoaded, type Engine } from "../models/engine.js";
export { ModelError, type ModelErrorCode } from "../models/errors.js";
export { ModelRegistry, type ModelRef, type ModelSummary, type ModelSource } from "../models/registry.js";
export { AuthStore, type Credential } from "../models/auth-store.js";
export { readModelsFile, type CustomProvider, type ModelsFileWarning } from "../models/models-json.js";
export { classifyError, isTransient, boundErrorMessage, type ErrorKind, type TurnError } from "../run/error-kind.js";
export * from "../settings/read.js";
export * from "../settings/write.js";
export * from "../settings/store.js";
export * from "../settings/errors.js";
export * from "../settings/scope.js";
export {
  SETTINGS_CATALOGUE,
  CATALOGUE_ENTRIES,
  settingsDefaults,
  THINKING_LEVELS,
  APPROVAL_MODES,
  type EffectiveSettings,
  type ThinkingLevel,
  type ApprovalMode,
} from "../settings/catalogue.js";
export { SETTING_MIGRATIONS } from "../settings/migrations.js";
export * from "../trust/store.js";
export * from "../trust/resources.js";
export * from "../trust/errors.js";
export { analyzeShellCommand, formatPrefix, prefixCovers, MAX_ANALYZED_COMMAND_LENGTH, type ShellKind, type ShellPrefixAnalysis } from "../approvals/shell-prefix.js";
export * from "../session/index.js";
export * from "../listing/index.js";
export { imageMimeType, type ImageMimeType } from "../tools/image.js";
export { ThreadRuntime, loadThreadRuntime } from "../thread/load-runtime.js";
export { warmUp, type WarmUpOptions } from "../thread/warm-up.js";
export type { ThreadEnvironment, ThreadRuntimeOptions, InputOutcome } from "../thread/runtime.js";
export { ExtensionFactoryCache, ExtensionLoadError, type ExtensionFactoryCacheOptions, type FactoryCacheCounts, type FactoryLease } from "../extensions/factory-cache.js";
