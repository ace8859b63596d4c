import { sandboxSupport } from "../process/sandbox/support.js";
import { ThreadSandbox } from "../process/sandbox/thread-sandbox.js";
import { sandboxReadOnlyPaths } from "../resources/sandbox-paths.js";
import type { SettingsSnapshot } from "../settings/read.js";
import type { ThreadRuntimeOptions, ThreadSandboxing } from "./runtime.js";

/** The thread's sandbox, from the server's decisions and the thread's global settings as they stand at each command. */
export function threadSandbox(options: ThreadRuntimeOptions, sandboxing: ThreadSandboxing, settings: () => SettingsSnapshot): ThreadSandbox {
  const env = options.environment;
  return new ThreadSandbox({
    folder: sandboxing.folder ?? options.cwd,
    agentDir: env.agentDir,
    secretFiles: env.secrets?.files ?? [],
    trusted: () => env.trust.decisionFor(options.cwd) === true,
    settings: () => settings().effective.sandbox,
    unsandboxed: () => sandboxing.unsandboxed(),
    networkGranted: (callId) => sandboxing.networkGranted(callId),
    controlPaths: (root) =>
      sandboxReadOnlyPaths({
        root,
        agentDir: env.agentDir,
        env: env.env,
        codePaths: { agentDir: env.agentDir, cwd: options.cwd, cliExtensions: env.extensionPaths, isTrusted: (folder) => env.trust.decisionFor(folder) === true },
      }),
    support: () => sandboxSupport(env.env),
  });
}
