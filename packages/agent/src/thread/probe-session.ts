import { randomUUID } from "node:crypto";
import { homedir } from "node:os";
import { ExtensionHost } from "../extensions/host.js";
import { silentUI } from "../extensions/silent-ui.js";
import { ModelRegistry } from "../models/registry.js";
import { readSettings, type SettingsSnapshot } from "../settings/read.js";
import { ProcessGroups } from "@knightcode/system/process/groups";
import { threadChildEnv } from "./child-env.js";
import type { ThreadEnvironment } from "./runtime-options.js";
import { threadResources, type ThreadResources } from "./thread-resources.js";

/** What a probe learns about a new thread: its settings, its resources, and its extensions as their factories left them. */
export interface ProbeSession {
  /** The folder the thread would run in; the home folder for a project-less one. */
  cwd: string;
  snapshot: SettingsSnapshot;
  found: ThreadResources;
  host: ExtensionHost;
}

/**
 * Runs `use` on a session built in memory that never binds: the settings,
 * trust and resources a new thread in `cwd` would read, and its
 * extensions' factories, run to learn what they register. Without `cwd`,
 * a project-less thread: global settings and resources only. No
 * `session_start` or `session_shutdown` handler runs, nothing is written
 * (what a factory appends or sends is dropped), and what the factories
 * started is undone before it returns: their programs are killed, their
 * providers live in a registry of their own and go with it, and their code
 * cache leases are released. `method` names the request in log lines.
 */
export async function withProbeSession<T>(env: ThreadEnvironment, cwd: string | undefined, method: string, use: (probe: ProbeSession) => T): Promise<T> {
  const trust = cwd === undefined ? false : env.trust.decisionFor(cwd);
  const snapshot = readSettings(cwd === undefined ? { agentDir: env.agentDir } : { agentDir: env.agentDir, cwd, trust });
  const folder = cwd ?? homedir();
  const found = threadResources(env, folder, snapshot, trust === true);
  const log = (line: string) => env.log?.(`${method} in ${cwd ?? "no project"}: ${line}`);
  // Providers a factory registers must not show in model/list: they go to this registry, and nothing keeps it.
  const probeEnv: ThreadEnvironment = { ...env, registry: new ModelRegistry(env.agentDir, env.env) };
  const processes = new ProcessGroups();
  const host = new ExtensionHost({
    threadId: `${method.replace("/", "-")}-${randomUUID()}`,
    cwd: folder,
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
    return use({ cwd: folder, snapshot, found, host });
  } finally {
    host.discard();
    await processes.dispose();
  }
}
