import { homedir } from "node:os";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { childEnvironment } from "@knightcode/system/process/child-env";
import { ToolError } from "./errors.js";
import type { ProcessGroups } from "@knightcode/system/process/groups";
import type { SandboxLaunch } from "@knightcode/system/process/sandbox/command";
import type { SpillFiles } from "./spill-files.js";

/** What the tools of one thread share. */
export interface ToolContext {
  /** The thread's working directory; relative paths resolve against it. */
  cwd: string;
  /**
   * Environment for child processes and for finding rg and fd, or what
   * answers it at each start (a thread's: the server's environment without
   * its token and provider keys, see childEnvironment). Defaults to
   * process.env without them.
   */
  env?: NodeJS.ProcessEnv | (() => NodeJS.ProcessEnv);
  /** Owns the process groups the thread's commands start, so none outlives the thread. */
  processes?: ProcessGroups;
  /**
   * The agent dir (`~/.knightcode/agent` by default). read, grep, find and ls
   * run without approval and what they return goes to the model provider, so
   * they refuse its credential files (auth.json, models.json, tools.json,
   * mcp.json). Unset, as for tools built outside a thread, nothing is refused.
   */
  agentDir?: string;
  /** Other files holding the server's own secrets (the `--listen-token-file`), refused like the credential files. */
  secretFiles?: readonly string[];
  /** Owns the files bash spills large outputs to, and deletes them; without it they are left behind. */
  spills?: SpillFiles;
  /** How the thread's commands run: in its sandbox, or (without one, or when it answers undefined) unsandboxed. */
  sandbox?: CommandSandbox;
}

/** What a tool asks before starting a program for the model. */
export interface CommandSandbox {
  /**
   * The sandbox the command runs in, or undefined when it runs without one.
   * Rejects (SandboxRequiredError) when the sandbox is required and cannot run.
   */
  forCommand(request: { callId?: string; wantsNetwork?: boolean }): Promise<SandboxLaunch | undefined>;
}

/** The environment a tool's child process starts with, asked anew for each start. */
export function toolEnv(ctx: ToolContext): NodeJS.ProcessEnv {
  if (ctx.env === undefined) return childEnvironment(process.env);
  return typeof ctx.env === "function" ? ctx.env() : ctx.env;
}

/** Resolves a path the model gave: `~` is the home directory, relative is against the thread's cwd. */
export function resolveToolPath(ctx: ToolContext, path: string): string {
  if (path.length === 0) throw new ToolError("invalidArgument", "The path is empty.");
  if (path.includes("\0")) throw new ToolError("invalidArgument", "The path contains a NUL character.");
  if (path === "~" || path.startsWith("~/")) return join(absoluteHome(), path.slice(2));
  return isAbsolute(path) ? resolve(path) : resolve(ctx.cwd, path);
}

/** A HOME that is empty or relative would put `~/x` beside the server's own working folder: refused. */
function absoluteHome(): string {
  const home = homedir();
  if (!isAbsolute(home)) throw new ToolError("invalidArgument", `~ cannot be used: the home folder (${JSON.stringify(home)}) is not an absolute path.`);
  return home;
}

/** A path as the user sees it: relative to the cwd when inside it, else absolute. */
export function displayPath(ctx: ToolContext, absolutePath: string): string {
  const rel = relative(resolve(ctx.cwd), absolutePath);
  if (rel === "") return ".";
  if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return absolutePath;
  return rel;
}
