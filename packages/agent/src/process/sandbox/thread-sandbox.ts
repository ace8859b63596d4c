import { existsSync, mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { broadFolder } from "../../fs/broad-folders.js";
import { isWithin, realPathOf, realTarget } from "../../fs/real-target.js";
import type { SandboxLaunch } from "./command.js";
import { gitFoldersAround } from "./git-folders.js";
import type { HiddenPath, SandboxPolicy } from "./policy.js";
import { makePrivateTmp, removePrivateTmp } from "./private-tmp.js";
import type { SandboxSupport } from "./support.js";

/** The global `sandbox.*` settings (a project's are ignored). */
export interface SandboxSettings {
  mode: "workspace" | "off";
  network: boolean;
  required: boolean;
}

export interface ThreadSandboxOptions {
  /** The folder writes may land in: the thread's folder, or its whole worktree. */
  folder: string;
  agentDir: string;
  /** The server's own secret files (the listen token file): never visible. */
  secretFiles: readonly string[];
  /** Whether the thread's project is trusted: its `.knightcode/` then holds settings and code the server loads. */
  trusted(): boolean;
  settings(): SandboxSettings;
  /** The thread runs without the sandbox (`fullAccess`). */
  unsandboxed(): boolean;
  /** The user let this call, or every call of the thread, use the network. */
  networkGranted(callId: string | undefined): boolean;
  /** Places inside `root` whose files decide what later runs: they stay read-only. */
  controlPaths?(root: string): string[];
  support(): Promise<SandboxSupport>;
}

/** A sandboxed call refused because the sandbox cannot run here and `sandbox.required` is on. */
export class SandboxRequiredError extends Error {
  constructor(reason: string) {
    super(`The sandbox cannot run on this machine (${reason}), and the global setting sandbox.required refuses commands without it.`);
    this.name = "SandboxRequiredError";
  }
}

/**
 * One thread's sandbox: what each command the thread starts for the model
 * may see and write, decided at the moment it starts, and the private
 * temporary folder its commands share, which goes when the thread does.
 */
export class ThreadSandbox {
  private tmp: Promise<string> | undefined;
  private disposed = false;

  constructor(private readonly options: ThreadSandboxOptions) {}

  /**
   * How a command of this thread runs: in the sandbox (the launch), or
   * without one (undefined: `fullAccess`, `sandbox.mode: "off"`, or no
   * sandbox on this machine while it is not required). Throws
   * SandboxRequiredError when it is required and cannot run.
   */
  async forCommand(request: { callId?: string; wantsNetwork?: boolean }): Promise<SandboxLaunch | undefined> {
    const { options } = this;
    const settings = options.settings();
    if (options.unsandboxed() || settings.mode === "off") return undefined;
    const support = await options.support();
    if (!support.available || support.binary === undefined || support.kind === "none") {
      if (settings.required) throw new SandboxRequiredError(support.reason ?? "unknown");
      return undefined;
    }
    const network = settings.network || (request.wantsNetwork === true && options.networkGranted(request.callId));
    const policy = this.policy(await this.privateTmp(), network);
    const env = { TMPDIR: policy.tmp, XDG_CACHE_HOME: join(policy.tmp, ".cache"), npm_config_cache: join(policy.tmp, ".npm") };
    return { kind: support.kind, binary: support.binary, policy, env };
  }

  /** Whether the thread's commands would run sandboxed now, and the network they would have: for the gate and the tools' notes. */
  async state(): Promise<{ sandboxed: boolean; network: boolean }> {
    const settings = this.options.settings();
    if (this.options.unsandboxed() || settings.mode === "off") return { sandboxed: false, network: true };
    const support = await this.options.support();
    return support.available ? { sandboxed: true, network: settings.network } : { sandboxed: false, network: true };
  }

  /** Removes the private temporary folder; the thread's processes must be gone first. */
  async dispose(): Promise<void> {
    this.disposed = true;
    const tmp = this.tmp;
    this.tmp = undefined;
    if (tmp !== undefined) await removePrivateTmp(await tmp.catch(() => "")).catch(() => undefined);
  }

  private privateTmp(): Promise<string> {
    if (this.disposed) return Promise.reject(new Error("the thread's sandbox is closed"));
    this.tmp ??= makePrivateTmp();
    return this.tmp;
  }

  /** What one command may see and write, from the disk as it is now. */
  policy(tmp: string, network: boolean): SandboxPolicy {
    const { options } = this;
    const root = realTarget(options.folder);
    // In a folder that is the root, a home or a system folder no write counts as inside the project: none is writable.
    const writable = broadFolder(root) === undefined ? [root] : [];
    const readOnly: string[] = [];
    const git = writable.length > 0 ? gitFoldersAround(root) : undefined;
    if (git !== undefined) {
      for (const dir of new Set([git.gitDir, git.commonDir])) {
        // Bound onto itself even inside the folder: a mount point cannot be renamed aside for a fresh `.git` without the read-only parts.
        writable.push(dir);
        // A missing hooks folder is where git looks by default: made (empty) so that it can stay read-only.
        ensureFolder(join(dir, "hooks"));
        readOnly.push(join(dir, "hooks"), join(dir, "config"), join(dir, "config.worktree"));
      }
    }
    if (writable.length > 0) {
      if (options.trusted()) ensureFolder(join(root, ".knightcode"));
      readOnly.push(join(root, ".knightcode"), ...(options.controlPaths?.(root) ?? []));
    }
    const hidden: HiddenPath[] = [
      { path: realPathOf(options.agentDir), folder: true },
      ...options.secretFiles.map((path) => ({ path: realPathOf(path), folder: false })),
    ];
    if (!network) for (const run of new Set(["/run", realPathOf("/var/run")])) hidden.push({ path: run, folder: true });
    return {
      tmp,
      writable,
      readOnly: [...new Set(readOnly.map(realPathOf))].filter((path) => existsSync(path) && writable.some((dir) => isWithin(dir, path))),
      hidden: hidden.filter((entry) => existsSync(entry.path) && statSync(entry.path).isDirectory() === entry.folder),
      network,
    };
  }
}

function ensureFolder(path: string): void {
  try {
    if (!existsSync(path)) mkdirSync(path, { mode: 0o755 });
  } catch {
    // A folder that cannot be made here cannot be written by the command either.
  }
}
