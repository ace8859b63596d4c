import type { SubAgentHandler } from "../tools/subagents.js";
import type { Api, Model } from "@mariozechner/pi-ai";
import type { ModelRegistry } from "../models/registry.js";
import type { ProcessGroups } from "@knightcode/system/process/groups";
import type { NestedToolResult } from "../run/nested-tool.js";
import type { CommandSandbox } from "../tools/context.js";
import type { ExtensionFactoryCache } from "./factory-cache.js";
import type { HookClock } from "./hook-limit.js";
import type { ExtensionAPI, ExtensionMessageInput, ExtensionMode, ExtensionUI, ExtensionWarning, ScopedExtensionUI } from "./types.js";

export interface ExtensionSpec {
  /** An absolute path to a module; for a built-in, its name. */
  path: string;
  /** Built-ins come as code, not files, and are never listed as resources. */
  factory?: BuiltinFactory;
  builtin?: boolean;
}

/**
 * What a built-in extension gets besides the API: the thread's own
 * channels, which a user's extension never sees.
 */
export interface BuiltinServices {
  /** Reports a problem after loading as a `warning` to the thread's subscribers. */
  warn(warning: ExtensionWarning): void;
  /** The environment the thread starts programs with (childEnvironment). */
  childEnv(): NodeJS.ProcessEnv;
  /** The thread's process groups: what a built-in starts dies with the thread at the latest. */
  processes?: ProcessGroups;
  log(line: string): void;
  /**
   * Runs `release` when the extension goes (unload, reload, shutdown),
   * after `session_shutdown` and whatever became of its handlers: an
   * interrupted or abandoned handler does not skip it.
   */
  onDispose(release: () => Promise<void> | void): void;
}

/** A built-in's factory; a user extension's factory is one that ignores the services. */
export type BuiltinFactory = (api: ExtensionAPI, services: BuiltinServices) => void | Promise<void>;

/** What the host needs from the thread it serves. */
export interface ExtensionHostDeps {
  threadId: string;
  cwd: string;
  mode: ExtensionMode;
  hasUI: boolean;
  /** Shared by every extension; a scoped one gives each extension its own view of it. */
  ui: ExtensionUI | ScopedExtensionUI;
  registry: ModelRegistry;
  model(): Model<Api> | undefined;
  turnSignal(): AbortSignal | undefined;
  abort(): void;
  isIdle(): boolean;
  appendEntry(customType: string, data: unknown): void;
  sendMessage(message: ExtensionMessageInput, options: { triggerTurn?: boolean; deliverAs?: "steer" | "followUp" }): void;
  /** A failure after loading: the thread reports it as a `warning`. */
  warn(warning: ExtensionWarning): void;
  /** Tools or commands changed after loading (an extension registered one late). */
  changed?(): void;
  log?(line: string): void;
  /** The server's environment: where an extension provider's `$NAME` key is read. */
  env?: NodeJS.ProcessEnv;
  /** The environment `exec` starts programs with, asked at each start; the server's without its secrets by default (childEnvironment). */
  childEnv?(): NodeJS.ProcessEnv;
  /** Owns the process groups `exec` starts, so none outlives the thread. */
  processes?: ProcessGroups;
  /** The thread's sandbox, which `exec` runs programs in like the model's commands. */
  sandbox?: CommandSandbox;
  /** How long an extension's factory may take; 10 s by default. */
  loadTimeoutMs?: number;
  /** How long one event handler may run before it is abandoned; asked at each event, so a reload's settings apply. 30 s by default. */
  hookTimeoutMs?(): number;
  /** The timers of that limit; real ones by default. */
  hookClock?: HookClock;
  /** The process's cache of extension code; without one, the host keeps its own. */
  factories?: ExtensionFactoryCache;
  /** Runs a tool of the thread as a nested call of `parentId` (ctx.runTool of extension tools). */
  runTool?(parentId: string, name: string, params: unknown, signal: AbortSignal | undefined): Promise<NestedToolResult>;
  /** Replaces the thread with a fresh one (a command's ctx.newSession()); resolves to its id. Without it, newSession rejects. */
  newSession?(): Promise<string>;
  /** What the sub-agent tools do, for ctx.subagents; a thread without it (a sub-agent) gives extensions none. */
  subAgents?: SubAgentHandler;
}

/** What running a command did beyond its own work. */
export interface CommandRun {
  /** The thread that replaced this one, when the command called ctx.newSession(). */
  newThreadId?: string;
}
