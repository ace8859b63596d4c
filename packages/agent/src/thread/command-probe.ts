import { randomUUID } from "node:crypto";
import { ExtensionHost } from "../extensions/host.js";
import { silentUI } from "../extensions/silent-ui.js";
import { ModelRegistry } from "../models/registry.js";
import { listCommands, type CommandInfo } from "../resources/commands.js";
import { readSettings } from "../settings/read.js";
import { ProcessGroups } from "../tools/process-groups.js";
import { threadChildEnv } from "./child-env.js";
import type { ThreadEnvironment } from "./runtime.js";
import { threadResources } from "./thread-resources.js";

/**
 * The commands a new thread in `cwd` would offer, from a session built in
 * memory that never binds: the settings, trust and resources a thread there
 * would read, and its extensions' factories, run to learn what they
 * register. No `session_start` or `session_shutdown` handler runs, nothing
 * is written (what a factory appends or sends is dropped), and what the
 * factories started is undone before it answers: their programs are
 * killed, their providers live in a registry of their own and go with it,
 * and their code cache leases are released.
 */
export async function probeCommands(env: ThreadEnvironment, cwd: string): Promise<CommandInfo[]> {
  const trust = env.trust.decisionFor(cwd);
  const snapshot = readSettings({ agentDir: env.agentDir, cwd, trust });
  const found = threadResources(env, cwd, snapshot, trust === true);
  const log = (line: string) => env.log?.(`command/list in ${cwd}: ${line}`);
  // Providers a factory registers must not show in model/list: they go to this registry, and nothing keeps it.
  const probeEnv: ThreadEnvironment = { ...env, registry: new ModelRegistry(env.agentDir, env.env) };
  const processes = new ProcessGroups();
  const host = new ExtensionHost({
    threadId: `command-list-${randomUUID()}`,
    cwd,
    mode: "desktop",
    hasUI: false,
    ui: silentUI(log),
    registry: probeEnv.registry,
    env: env.env,
    childEnv: () => threadChildEnv(probeEnv, snapshot),
    model: () => undefined,
    turnSignal: () => undefined,
    abort: () => undefined,
    isIdle: () => true,
    appendEntry: (customType) => log(`an extension's entry (${customType}) is dropped: the session is never saved`),
    sendMessage: (message) => log(`an extension's message (${message.customType}) is dropped: the session never runs`),
    warn: (warning) => log(warning.path ? `${warning.message} (${warning.path})` : warning.message),
    log,
    factories: env.extensionFactories,
    processes,
  });
  try {
    for (const warning of await host.load(found.extensions)) log(warning.path ? `${warning.message} (${warning.path})` : warning.message);
    return listCommands(found.resources, host.commands());
  } finally {
    host.discard();
    await processes.dispose();
  }
}
