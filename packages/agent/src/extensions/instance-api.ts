import { childEnvironment } from "@knightcode/system/process/child-env";
import { execProgram } from "./exec.js";
import type { FactoryLease } from "./factory-cache.js";
import type { BuiltinServices, ExtensionHostDeps, ExtensionSpec } from "./host-deps.js";
import { providerFromDefinition } from "./provider.js";
import type { ExtensionAPI, ExtensionCommand, ExtensionEventName, ExtensionHandler, ExtensionToolDefinition, ExtensionUI } from "./types.js";

/** One loaded extension in one thread: what it registered, and what it holds. */
export interface Instance {
  spec: ExtensionSpec;
  handlers: Map<ExtensionEventName, ExtensionHandler<ExtensionEventName>[]>;
  tools: Map<string, ExtensionToolDefinition>;
  commands: Map<string, ExtensionCommand>;
  providers: string[];
  active: boolean;
  /** The cache entry a file's instance came from; built-ins have none. */
  lease?: FactoryLease;
  /** The UI this extension's handlers, commands and tools see. */
  ui?: ExtensionUI;
  /** What a built-in asked to run when it goes. */
  disposers: (() => Promise<void> | void)[];
}

export function newInstance(spec: ExtensionSpec): Instance {
  return { spec, handlers: new Map(), tools: new Map(), commands: new Map(), providers: [], active: true, disposers: [] };
}

/** The owner an extension's providers are registered under in the model registry. */
export function providerOwner(threadId: string, instance: Instance): string {
  return `extension:${threadId}:${instance.spec.path}`;
}

/** What one extension's factory is given: registrations land in its instance, the rest goes to the thread. */
export function apiFor(instance: Instance, deps: ExtensionHostDeps): ExtensionAPI {
  const changed = () => {
    if (instance.active) deps.changed?.();
  };
  return {
    cwd: deps.cwd,
    mode: deps.mode,
    on(event, handler) {
      const list = instance.handlers.get(event) ?? [];
      list.push(handler as unknown as ExtensionHandler<ExtensionEventName>);
      instance.handlers.set(event, list);
    },
    registerTool(tool) {
      if (!tool || typeof tool.name !== "string" || !/^[a-zA-Z0-9_-]{1,64}$/.test(tool.name)) {
        throw new Error(`registerTool needs a name of letters, digits, _ or - (1-64 characters)`);
      }
      if (typeof tool.execute !== "function") throw new Error(`tool ${tool.name} has no execute function`);
      if (tool.parameters === null || typeof tool.parameters !== "object") throw new Error(`tool ${tool.name} needs a JSON Schema as parameters`);
      instance.tools.set(tool.name, tool);
      changed();
    },
    registerCommand(name, command) {
      if (!/^[a-zA-Z0-9][a-zA-Z0-9:_-]{0,63}$/.test(name)) throw new Error(`invalid command name ${JSON.stringify(name)}`);
      if (typeof command?.handler !== "function") throw new Error(`command ${name} has no handler`);
      instance.commands.set(name, command);
      changed();
    },
    registerProvider(name, definition) {
      const provider = providerFromDefinition(name, definition, deps.env ?? process.env);
      deps.registry.registerProvider(providerOwner(deps.threadId, instance), provider);
      if (!instance.providers.includes(name)) instance.providers.push(name);
    },
    sendMessage(message, options = {}) {
      deps.sendMessage(message, options);
    },
    appendEntry(customType, data) {
      deps.appendEntry(customType, data);
    },
    async exec(command, args = [], options = {}) {
      const env = deps.childEnv?.() ?? childEnvironment(deps.env ?? process.env);
      const sandbox = await deps.sandbox?.forCommand({});
      return execProgram(command, args, {
        cwd: options.cwd ?? deps.cwd,
        timeout: options.timeout,
        signal: options.signal,
        env,
        processes: deps.processes,
        ...(sandbox ? { sandbox } : {}),
      });
    },
  };
}

/** A built-in's extra channels to its thread. */
export function servicesFor(instance: Instance, deps: ExtensionHostDeps): BuiltinServices {
  return {
    warn: (warning) => deps.warn(warning),
    childEnv: () => deps.childEnv?.() ?? childEnvironment(deps.env ?? process.env),
    ...(deps.processes ? { processes: deps.processes } : {}),
    log: (line) => deps.log?.(line),
    onDispose: (release) => {
      instance.disposers.push(release);
    },
  };
}
