import { listCommands, type CommandInfo } from "../resources/commands.js";
import { withProbeSession } from "./probe-session.js";
import type { ThreadEnvironment } from "./runtime-options.js";

/**
 * The commands a new thread in `cwd` would offer, from a session built in
 * memory that never binds (withProbeSession): nothing starts, nothing is
 * written.
 */
export async function probeCommands(env: ThreadEnvironment, cwd: string): Promise<CommandInfo[]> {
  return withProbeSession(env, cwd, "command/list", ({ found, host }) => listCommands(found.resources, host.commands()));
}
