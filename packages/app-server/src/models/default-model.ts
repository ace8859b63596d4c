import { readSettings } from "@knightcode/agent/settings/read";
import type { ThreadEnvironment } from "@knightcode/agent/thread/runtime-options";

/** The model a new thread in `cwd` would start with, if any is usable: the settings' default as the registry resolves it. */
export async function defaultModel(environment: Pick<ThreadEnvironment, "agentDir" | "registry" | "trust">, cwd: string) {
  const effective = readSettings({ agentDir: environment.agentDir, cwd, trust: environment.trust.decisionFor(cwd) }).effective;
  try {
    return await environment.registry.resolve(undefined, { provider: effective.defaultProvider ?? undefined, id: effective.defaultModel ?? undefined });
  } catch {
    return undefined;
  }
}
