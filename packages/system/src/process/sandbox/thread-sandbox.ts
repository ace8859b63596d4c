import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { broadFolder } from "../../fs/broad-folders.js";
import { isWithin, realPathOf, realTarget } from "../../fs/real-target.js";
import type { SandboxLaunch } from "./command.js";
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
  settings(): SandboxSettings;
  /** The thread runs without the sandbox (`fullAccess`). */
  unsandboxed(): boolean;
  /** The user let this call, or every call of the thread, use the network. */
  networkGranted(callId: string | undefined): boolean;
  /**
   * Around `root`, the git folders a command also writes (a repository's
   * state), and the places whose files decide what later runs, kept
   * read-only inside what is writable. Without it only `root` is writable.
   */
  places?(root: string): SandboxPlaces;
  support(): Promise<SandboxSupport>;
}

/** Whether a thread's commands want the sandbox now and, if so, whether and how it can run (ThreadSandbox.state). */
export type SandboxState =
  | { wanted: false }
  | { wanted: true; available: false; reason: string; required: boolean }
  | { wanted: true; available: true; kind: "bwrap" | "seatbelt"; binary: string; network: boolean };

/** What ThreadSandboxOptions.places answers; real paths. */
export interface SandboxPlaces {
  gitFolders: readonly string[];
  readOnly: readonly string[];
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
    const state = await this.state();
    if (!state.wanted) return undefined;
    if (!state.available) {
      if (state.required) throw new SandboxRequiredError(state.reason);
      return undefined;
    }
    const network = state.network || (request.wantsNetwork === true && this.options.networkGranted(request.callId));
    const policy = this.policy(await this.privateTmp(), network);
    const env = { TMPDIR: policy.tmp, XDG_CACHE_HOME: join(policy.tmp, ".cache"), npm_config_cache: join(policy.tmp, ".npm") };
    return { kind: state.kind, binary: state.binary, policy, env };
  }

  /**
   * Whether the thread's commands want the sandbox now (not `fullAccess`,
   * `sandbox.mode` not "off"), and whether it can run: the one answer the
   * commands, the gate's network question and the load warning all read.
   */
  async state(): Promise<SandboxState> {
    const settings = this.options.settings();
    if (this.options.unsandboxed() || settings.mode === "off") return { wanted: false };
    const support = await this.options.support();
    if (!support.available || support.binary === undefined || support.kind === "none") {
      return { wanted: true, available: false, reason: support.reason ?? "unknown", required: settings.required };
    }
    return { wanted: true, available: true, kind: support.kind, binary: support.binary, network: settings.network };
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
    const broad = broadFolder(root) !== undefined;
    const places = broad ? undefined : options.places?.(root);
    // The git folders are bound onto themselves even inside the folder: a mount point cannot be renamed aside for a fresh `.git` without the read-only parts.
    const writable = broad ? [] : [root, ...(places?.gitFolders ?? [])];
    const readOnly = places?.readOnly ?? [];
    const hidden: HiddenPath[] = [
      { path: realPathOf(options.agentDir), folder: true },
      ...options.secretFiles.map((path) => ({ path: realPathOf(path), folder: false })),
    ];
    if (!network) for (const run of new Set(["/run", realPathOf("/var/run")])) hidden.push({ path: run, folder: true });
    return {
      tmp,
      writable,
      readOnly: readOnly.filter((path) => existsSync(path) && writable.some((dir) => isWithin(dir, path))),
      hidden: hidden.filter((entry) => existsSync(entry.path) && statSync(entry.path).isDirectory() === entry.folder),
      network,
    };
  }
}
