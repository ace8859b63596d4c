import { randomUUID } from "node:crypto";
import type { SubAgentHandler } from "../tools/subagents.js";
import { basename, dirname } from "node:path";
import type { AgentTool } from "@mariozechner/pi-agent-core";
import { ExtensionFactoryCache } from "./factory-cache.js";
import { DEFAULT_HOOK_TIMEOUT_MS, runHandler } from "./hook-limit.js";
import type { BuiltinFactory, CommandRun, ExtensionHostDeps, ExtensionSpec } from "./host-deps.js";
import { apiFor, newInstance, providerOwner, servicesFor, type Instance } from "./instance-api.js";
import { staleAwareUI } from "./stale-ui.js";
import type {
  ExtensionCommand,
  ExtensionCommandContext,
  ExtensionContext,
  ExtensionEventName,
  ExtensionEvents,
  ExtensionFactory,
  ExtensionHandler,
  ExtensionResults,
  ExtensionToolContext,
  ExtensionToolDefinition,
  ExtensionUI,
  ExtensionWarning,
  ExtensionSubAgents,
} from "./types.js";

export type { BuiltinFactory, BuiltinServices, CommandRun, ExtensionHostDeps, ExtensionSpec } from "./host-deps.js";

const LOAD_TIMEOUT_MS = 10_000;

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A handler that threw or ran past the limit; its warning has gone out already. */
export interface HandlerFailure {
  /** The extension's path, and its display name. */
  path: string;
  extension: string;
  timedOut: boolean;
  /** What went wrong: the error's message, or `did not finish within N ms`. */
  message: string;
}

export interface EmitOptions<E extends ExtensionEventName> {
  /** Ends the run at a result (a block, a handled input). */
  stop?(result: ExtensionResults[E]): boolean;
  /** What an interrupt aborts; the running turn's signal by default. */
  signal?: AbortSignal;
  /**
   * What a failed handler counts as. Without it the handler is skipped; a
   * gate answers with a block, so that a check that could not run never
   * lets through what it may have meant to stop.
   */
  onFailure?(failure: HandlerFailure): ExtensionResults[E] | undefined;
}

/**
 * One thread's extensions: each loaded as its own instance (the factory
 * cache shares transformed code, never module state), their handlers,
 * tools, commands and providers. An extension that throws - at load, in a
 * handler, in a command - becomes a warning naming its path; the thread
 * goes on.
 */
export class ExtensionHost {
  private instances: Instance[] = [];
  private ownFactories: ExtensionFactoryCache | undefined;
  /** The thread that replaced this one: from then on every context handed out is stale. */
  private replacedBy: string | undefined;
  private readonly staleCalls = new Set<string>();
  private readonly ui: ExtensionUI;

  constructor(private readonly deps: ExtensionHostDeps) {
    this.ui = staleAwareUI(deps.ui, (method) => this.isStale(`ui.${method}`));
  }

  /**
   * The thread was replaced by `threadId`: every context its extensions
   * hold, captured or fresh, is stale from now on. Its `ui` shows nothing
   * and answers no question, `abort()` does nothing, `newSession()`
   * rejects; each refused method is logged once.
   */
  retire(threadId: string): void {
    this.replacedBy ??= threadId;
  }

  private isStale(method: string): boolean {
    if (this.replacedBy === undefined) return false;
    if (!this.staleCalls.has(method)) {
      this.staleCalls.add(method);
      this.deps.log?.(`thread ${this.deps.threadId} was replaced by ${this.replacedBy}: ${method} on its stale extension context does nothing`);
    }
    return true;
  }

  /** Loads extensions in order; returns the warnings of those that failed to load. */
  async load(specs: ExtensionSpec[]): Promise<ExtensionWarning[]> {
    const warnings: ExtensionWarning[] = [];
    for (const spec of specs) {
      const instance = newInstance(spec);
      try {
        let factory = spec.factory;
        if (!factory) {
          instance.lease = await this.factories().lease(spec.path);
          factory = instance.lease.factory;
        }
        await this.runFactory(factory, instance);
        this.instances.push(instance);
      } catch (error) {
        instance.active = false;
        this.dropProviders(instance);
        instance.lease?.release();
        await this.runDisposers(instance);
        warnings.push({ message: `extension failed to load: ${describe(error)}`, source: "extension", path: spec.path });
      }
    }
    return warnings;
  }

  private factories(): ExtensionFactoryCache {
    if (this.deps.factories) return this.deps.factories;
    this.ownFactories ??= new ExtensionFactoryCache();
    return this.ownFactories;
  }

  private async runFactory(factory: BuiltinFactory, instance: Instance): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const limit = this.deps.loadTimeoutMs ?? LOAD_TIMEOUT_MS;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`it did not finish loading within ${limit} ms`)), limit);
    });
    try {
      const services = instance.spec.builtin ? servicesFor(instance, this.deps) : undefined;
      await Promise.race([
        Promise.resolve(services ? factory(apiFor(instance, this.deps), services) : (factory as ExtensionFactory)(apiFor(instance, this.deps))),
        timeout,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Runs a built-in's disposers; one that fails is logged, and the others still run. */
  private async runDisposers(instance: Instance): Promise<void> {
    for (const release of instance.disposers.splice(0)) {
      try {
        await release();
      } catch (error) {
        this.deps.log?.(`${instance.spec.path}: releasing failed: ${describe(error)}`);
      }
    }
  }

  private dropProviders(instance: Instance): void {
    if (instance.providers.length > 0) this.deps.registry.unregisterProvider(providerOwner(this.deps.threadId, instance));
  }

  /** The UI one extension sees (its own, when the host's UI tells extensions apart), stale once the thread is replaced. */
  private uiOf(instance: Instance | undefined): ExtensionUI {
    const ui = this.deps.ui;
    if (!instance || !("forExtension" in ui)) return this.ui;
    instance.ui ??= staleAwareUI(ui.forExtension(instance.spec.path), (method) => this.isStale(`ui.${method}`));
    return instance.ui;
  }

  /** The context handlers see, built fresh so it reflects the thread now. */
  context(): ExtensionContext {
    return this.contextOf(undefined);
  }

  /** The context one extension's handlers, commands and tools see: its own UI. */
  private contextOf(instance: Instance | undefined): ExtensionContext {
    const deps = this.deps;
    return {
      threadId: deps.threadId,
      cwd: deps.cwd,
      mode: deps.mode,
      hasUI: deps.hasUI,
      ui: this.uiOf(instance),
      get model() {
        return deps.model();
      },
      get signal() {
        return deps.turnSignal();
      },
      abort: () => {
        if (!this.isStale("abort")) deps.abort();
      },
      isIdle: () => deps.isIdle(),
      subagents: deps.subAgents ? extensionSubAgents(deps.subAgents) : undefined,
    };
  }

  /** A command's context: the thread's, plus newSession, whose new thread the run reports. */
  private commandContext(run: CommandRun, instance: Instance): ExtensionCommandContext {
    return {
      ...this.contextOf(instance),
      newSession: async () => {
        if (this.isStale("newSession")) throw new Error(`this context is stale: thread ${this.deps.threadId} was replaced by ${this.replacedBy}`);
        if (!this.deps.newSession) throw new Error("this thread cannot start a new session");
        const threadId = await this.deps.newSession();
        run.newThreadId ??= threadId;
        return threadId;
      },
    };
  }

  /**
   * Runs every handler of an event in load order and returns their results.
   * A handler that throws or runs past the time limit is reported and
   * skipped (or replaced by `onFailure`'s result); `stop` ends the run early.
   */
  async emit<E extends ExtensionEventName>(event: E, payload: ExtensionEvents[E], options: EmitOptions<E> = {}): Promise<ExtensionResults[E][]> {
    const results: ExtensionResults[E][] = [];
    const signal = options.signal ?? this.deps.turnSignal();
    const limitMs = this.deps.hookTimeoutMs?.() ?? DEFAULT_HOOK_TIMEOUT_MS;
    for (const instance of this.instances) {
      if (!instance.active) continue;
      const ctx = this.contextOf(instance);
      for (const handler of instance.handlers.get(event) ?? []) {
        const typed = handler as unknown as ExtensionHandler<E>;
        const outcome = await runHandler(() => typed(payload, ctx), { limitMs, signal, clock: this.deps.hookClock });
        let result: ExtensionResults[E] | undefined;
        if (outcome.kind === "returned") result = outcome.value;
        else if (outcome.kind !== "interrupted") result = this.failed(event, instance, outcome, options);
        if (result === undefined || result === null) continue;
        results.push(result);
        if (options.stop?.(result)) return results;
      }
    }
    return results;
  }

  /** Reports a handler that threw or ran out of time, and gives what it counts as. */
  private failed<E extends ExtensionEventName>(
    event: E,
    instance: Instance,
    outcome: { kind: "threw"; error: unknown } | { kind: "timedOut"; limitMs: number },
    options: EmitOptions<E>,
  ): ExtensionResults[E] | undefined {
    const path = instance.spec.path;
    const extension = extensionName(path);
    const timedOut = outcome.kind === "timedOut";
    const what = timedOut ? `did not finish within ${outcome.limitMs} ms` : describe(outcome.error);
    const message = timedOut ? `${event} handler of ${extension} ${what}; it was abandoned` : `${event} handler failed: ${what}`;
    this.deps.warn({ message, source: "extension", path });
    return options.onFailure?.({ path, extension, timedOut, message: what });
  }

  /** Registered tools, wrapped for the agent; a later extension's tool of the same name wins. */
  tools(): AgentTool[] {
    const byName = new Map<string, { tool: ExtensionToolDefinition; instance: Instance }>();
    for (const instance of this.instances) {
      if (!instance.active) continue;
      for (const tool of instance.tools.values()) byName.set(tool.name, { tool, instance });
    }
    return [...byName.values()].map(({ tool, instance }) => this.wrapTool(tool, instance));
  }

  private wrapTool(tool: ExtensionToolDefinition, instance: Instance): AgentTool {
    return {
      name: tool.name,
      label: tool.label ?? tool.name,
      description: tool.description,
      parameters: tool.parameters as AgentTool["parameters"],
      execute: async (toolCallId, params, signal, onUpdate) => {
        const runTool = this.deps.runTool;
        const ctx: ExtensionToolContext = {
          ...this.contextOf(instance),
          runTool: async (name, nestedParams, nestedSignal) => {
            if (!runTool) throw new Error("this host runs no nested tool calls");
            const result = await runTool(toolCallId, name, nestedParams, nestedSignal ?? signal);
            return result as Awaited<ReturnType<ExtensionToolContext["runTool"]>>;
          },
        };
        return tool.execute(toolCallId, params, signal, onUpdate, ctx);
      },
    };
  }

  commands(): { name: string; description: string; path: string }[] {
    const byName = new Map<string, { name: string; description: string; path: string }>();
    for (const instance of this.instances) {
      if (!instance.active) continue;
      for (const [name, command] of instance.commands) byName.set(name, { name, description: command.description ?? "", path: instance.spec.path });
    }
    return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Runs an extension command; undefined when no extension registered it. */
  async runCommand(name: string, args: string): Promise<CommandRun | undefined> {
    let found: { command: ExtensionCommand; instance: Instance } | undefined;
    for (const instance of this.instances) {
      const command = instance.active ? instance.commands.get(name) : undefined;
      if (command) found = { command, instance };
    }
    if (!found) return undefined;
    const run: CommandRun = {};
    try {
      await found.command.handler(args, this.commandContext(run, found.instance));
    } catch (error) {
      this.deps.warn({ message: `command /${name} failed: ${describe(error)}`, source: "extension", path: found.instance.spec.path });
    }
    return run;
  }

  /** Paths of the loaded (non built-in) extensions. */
  loadedPaths(): string[] {
    return this.instances.filter((i) => i.active && !i.spec.builtin).map((i) => i.spec.path);
  }

  /** Sends session_shutdown to every extension, forgets them and releases their cache leases; safe to call twice. */
  async dispose(reason: ExtensionEvents["session_shutdown"]["reason"]): Promise<void> {
    if (this.instances.length === 0) return;
    await this.emit("session_shutdown", { reason });
    for (const instance of this.instances) await this.runDisposers(instance);
    this.discard();
  }

  /**
   * Forgets every extension without an event (for a session that never
   * started), dropping their providers and leases; the built-ins' disposers
   * run without being waited for.
   */
  discard(): void {
    for (const instance of this.instances) {
      instance.active = false;
      this.dropProviders(instance);
      instance.lease?.release();
      if (instance.disposers.length > 0) void this.runDisposers(instance);
    }
    this.instances = [];
  }
}

/** A display name for an extension: its file name, or its folder for an index file. */
export function extensionName(path: string): string {
  const file = basename(path).replace(/\.(?:[cm]?[jt]s|tsx)$/, "");
  return file === "index" ? basename(dirname(path)) : file;
}

/** ctx.subagents over the thread's handler: an extension's start names a call id of its own, as the model's calls do. */
function extensionSubAgents(handler: SubAgentHandler): ExtensionSubAgents {
  return {
    start: (spec) => handler.start(spec, { toolCallId: `extension-${randomUUID()}` }),
    send: (agent, message) => handler.send(agent, message, { toolCallId: `extension-${randomUUID()}` }),
    wait: (agents, options = {}) => handler.wait(agents, options),
    close: (agent) => handler.close(agent),
  };
}
