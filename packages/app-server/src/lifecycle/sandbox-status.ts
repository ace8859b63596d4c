import { sandboxSupport, type SandboxSupport } from "@knightcode/system/process/sandbox/support";

/** Whether the sandbox can run here, probed once per process; its own module, so the handshake never loads the runner. */
export function sandboxStatus(env: NodeJS.ProcessEnv): Promise<SandboxSupport> {
  return sandboxSupport(env);
}
