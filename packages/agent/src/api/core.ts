/**
 * What the server needs to find, list, read, own and configure threads;
 * never the agent run itself. Only `export *`, as in ../index.ts: a named
 * re-export here would make every module below part of the chunk of
 * whatever imports the smallest of them.
 */
export type { Warning } from "../warning.js";
export * from "../fs/file-lock.js";
export * from "../fs/atomic-write.js";
export * from "../fs/file-queue.js";
export * from "../fs/real-target.js";
export * from "../fs/broad-folders.js";
export * from "../resources/sandbox-paths.js";
export * from "../fs/regular-file.js";
export * from "../models/engine.js";
export * from "../models/errors.js";
export * from "../models/registry.js";
export * from "../models/auth-store.js";
export * from "../models/models-json.js";
export * from "../models/oauth-logins.js";
export * from "../run/error-kind.js";
export * from "../settings/read.js";
export * from "../settings/write.js";
export * from "../settings/store.js";
export * from "../settings/errors.js";
export * from "../settings/scope.js";
export * from "../settings/catalogue.js";
export * from "../settings/migrations.js";
export * from "../trust/store.js";
export * from "../trust/resources.js";
export * from "../trust/errors.js";
export * from "../environments/environments-file.js";
export * from "../git/index.js";
export * from "../worktrees/index.js";
export * from "../thread/child-env.js";
export * from "../approvals/shell-prefix.js";
export * from "../approvals/shell-paths.js";
export * from "../approvals/secret-places.js";
export * from "../session/index.js";
export * from "../listing/index.js";
export * from "../tools/image.js";
export * from "../tools/tools-json.js";
export * from "../tools/tool-settings.js";
export * from "../thread/load-runtime.js";
export * from "../thread/warm-up.js";
export * from "../thread/gates.js";
export type { ThreadEnvironment, ThreadRuntimeOptions, ThreadSandboxing, InputOutcome } from "../thread/runtime.js";
export type { ToolListing, ToolSource } from "../thread/tool-probe.js";
export * from "../process/child-env.js";
export * from "../process/launch.js";
export * from "../process/sandbox/support.js";
export * from "../process/sandbox/private-tmp.js";
export * from "../util/executable.js";
export * from "../extensions/factory-cache.js";
export * from "../extensions/hook-limit.js";
export * from "../mcp/config.js";
export * from "../mcp/files.js";
export * from "../mcp/write.js";
export * from "../mcp/extension.js";
