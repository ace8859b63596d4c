import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { sandboxSupport } from "@knightcode/system/process/sandbox/support";
import { ThreadSandbox, type SandboxPlaces } from "@knightcode/system/process/sandbox/thread-sandbox";
import { sandboxControlPaths } from "../resources/sandbox-paths.js";
import type { SettingsSnapshot } from "../settings/read.js";
import type { ThreadRuntimeOptions, ThreadSandboxing } from "./runtime-options.js";

/** The thread's sandbox, from the server's decisions and the thread's global settings as they stand at each command. */
export function threadSandbox(options: ThreadRuntimeOptions, sandboxing: ThreadSandboxing, settings: () => SettingsSnapshot): ThreadSandbox {
  const env = options.environment;
  return new ThreadSandbox({
    folder: sandboxing.folder ?? options.cwd,
    agentDir: env.agentDir,
    secretFiles: env.secrets?.files ?? [],
    settings: () => settings().effective.sandbox,
    unsandboxed: () => sandboxing.unsandboxed(),
    networkGranted: (callId) => sandboxing.networkGranted(callId),
    places: (root) =>
      sandboxPlaces({
        root,
        cwd: options.cwd,
        agentDir: env.agentDir,
        env: env.env,
        cliExtensions: env.extensionPaths,
        isTrusted: (folder) => env.trust.decisionFor(folder) === true,
      }),
    support: () => sandboxSupport(env.env),
  });
}

export interface SandboxPlacesOptions {
  /** The writable folder: the thread's folder, or its worktree. */
  root: string;
  /** The thread's folder, whose settings name the code that stays read-only. */
  cwd: string;
  agentDir: string;
  env?: NodeJS.ProcessEnv;
  cliExtensions: readonly string[];
  isTrusted(folder: string): boolean;
  homeDir?: string;
}

/**
 * The git folders a thread's sandboxed command writes and the control
 * places it may not (see sandboxControlPaths). Two missing control places
 * are made, empty, so that they can be kept read-only: the git folders'
 * `hooks` (where git looks by default) and a trusted project's
 * `.knightcode`. A bind mount cannot cover a place that does not exist.
 */
export function sandboxPlaces(options: SandboxPlacesOptions): SandboxPlaces {
  const { root, cwd, agentDir, cliExtensions, isTrusted } = options;
  const found = sandboxControlPaths({
    root,
    agentDir,
    ...(options.env ? { env: options.env } : {}),
    ...(options.homeDir ? { home: options.homeDir } : {}),
    codePaths: { agentDir, cwd, cliExtensions, isTrusted, ...(options.homeDir ? { homeDir: options.homeDir } : {}) },
  });
  const made = new Set([...found.gitFolders.map((folder) => join(folder, "hooks")), ...(isTrusted(cwd) ? [join(root, ".knightcode")] : [])]);
  const readOnly = [...found.readOnly];
  for (const path of found.absent) {
    if (!made.has(path)) continue;
    try {
      mkdirSync(path, { mode: 0o755 });
      readOnly.push(path);
    } catch {
      // A folder that cannot be made here cannot be written by the command either.
    }
  }
  return { gitFolders: found.gitFolders, readOnly };
}
