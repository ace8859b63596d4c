import { resolve } from "node:path";
import type { ClientRequestParams } from "@knightcode/app-server-protocol";
import { shellPath } from "@knightcode/agent/tools/bash";
import { isDirectory } from "@knightcode/system/fs/is-directory";
import { isWithin, realPathOf } from "@knightcode/system/fs/real-target";
import { launch } from "@knightcode/system/process/launch";
import { loadPty, PTY_MODULE, PtyLaunched, type PtyModule } from "@knightcode/system/process/pty-launch";
import type { SandboxLaunch } from "@knightcode/system/process/sandbox/command";
import { SandboxRequiredError } from "@knightcode/system/process/sandbox/thread-sandbox";
import { rpcError } from "../rpc/errors.js";
import type { LoadedThread } from "../threads/loaded-thread.js";
import { pipeChild, ptyChild, Terminal, type TerminalChild } from "./terminal.js";
import { terminalsOf } from "./thread-terminals.js";

/**
 * `off`: terminals are refused as on a machine without node-pty (for a
 * test of that answer). It never names a module: the environment picks no
 * code to load.
 */
export const PTY_ENV = "KNIGHTCODE_PTY";

/** Between SIGTERM and SIGKILL when a command is terminated, cut at its cap, or ends leaving processes behind. */
const KILL_GRACE_MS = 1000;
/** How long output is still read after the shell exits while something it started holds the pipes. */
const PIPE_GRACE_MS = 250;

type ExecParams = ClientRequestParams<"command/exec">;

/**
 * Starts a client's command in the thread's folder, through the thread's
 * sandbox and with its environment, as the bash tool starts the model's:
 * `bash -c` the line, in a process group the thread owns. Answers its id;
 * `opened` is what the caller runs once that answer is out.
 */
export async function startTerminal(thread: LoadedThread, params: ExecParams, env: NodeJS.ProcessEnv): Promise<{ processId: string; opened: () => void }> {
  const settings = thread.runtime.settings.effective.terminals;
  const pty = params.tty === true ? ptyModule(env) : undefined;
  if (pty === undefined && (params.cols !== undefined || params.rows !== undefined)) {
    throw rpcError("invalidParams", "params.cols and params.rows size a terminal: they need tty: true");
  }
  const cwd = folderFor(thread.core.place.cwd, params.cwd);
  const terminals = terminalsOf(thread);
  const release = terminals.reserve(settings.maxPerThread);
  try {
    const childEnv = thread.runtime.childEnv();
    const shell = await shellPath(childEnv);
    const sandbox = await sandboxOf(thread);
    const child = await startChild({ shell, command: params.command, cwd, env: childEnv, sandbox, thread, pty, params });
    let processId = "";
    const terminal = new Terminal({
      child,
      maxOutputBytes: settings.maxOutputBytes,
      killGraceMs: KILL_GRACE_MS,
      output: (stream, data) => thread.send("command/exec/outputDelta", { threadId: thread.id, processId, stream, data: data.toString("base64") }),
      exited: (end) => {
        terminals.remove(processId);
        thread.send("command/exec/exited", { threadId: thread.id, processId, ...end });
      },
      failed: (error) => thread.log.error(`command/exec process ${processId}`, error),
    });
    processId = terminals.add(terminal, { command: params.command, cwd, tty: pty !== undefined, startedAt: Date.now() });
    return { processId, opened: () => terminal.open() };
  } finally {
    release();
  }
}

/** node-pty, or toolMissing saying why there is none. */
function ptyModule(env: NodeJS.ProcessEnv): PtyModule {
  try {
    if (env[PTY_ENV] === "off") throw new Error(`${PTY_ENV} is off`);
    return loadPty(PTY_MODULE);
  } catch (error) {
    const said = ((error as Error).message ?? String(error)).split("\n")[0];
    throw rpcError("toolMissing", `tty: true needs node-pty, which cannot be loaded here (${said}); commands without tty still run`, { tool: "node-pty" });
  }
}

/** The folder `cwd` names inside the thread's, links resolved; invalidParams outside it or when it is no folder. */
function folderFor(root: string, cwd: string | undefined): string {
  if (cwd === undefined || cwd === "") return root;
  if (cwd.includes("\0")) throw rpcError("invalidParams", "params.cwd contains a NUL character");
  const target = resolve(root, cwd);
  const real = realPathOf(target);
  if (!isWithin(root, target) || !isWithin(realPathOf(root), real)) {
    throw rpcError("invalidParams", `params.cwd ${JSON.stringify(cwd)} is outside the thread's folder ${root}`);
  }
  if (!isDirectory(real)) throw rpcError("invalidParams", `params.cwd ${JSON.stringify(cwd)} is not a folder in the thread's folder`);
  return target;
}

async function sandboxOf(thread: LoadedThread): Promise<SandboxLaunch | undefined> {
  try {
    return await thread.runtime.sandbox?.forCommand({});
  } catch (error) {
    if (error instanceof SandboxRequiredError) throw rpcError("toolMissing", error.message, { tool: "sandbox" });
    throw error;
  }
}

interface ChildStart {
  shell: string;
  command: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  sandbox: SandboxLaunch | undefined;
  thread: LoadedThread;
  pty: PtyModule | undefined;
  params: ExecParams;
}

async function startChild(start: ChildStart): Promise<TerminalChild> {
  const base = {
    file: start.shell,
    args: ["-c", start.command],
    cwd: start.cwd,
    env: start.env,
    processes: start.thread.runtime.processes,
    ...(start.sandbox ? { sandbox: start.sandbox } : {}),
    killGraceMs: KILL_GRACE_MS,
  };
  try {
    if (start.pty !== undefined) return ptyChild(new PtyLaunched(start.pty, { ...base, cols: start.params.cols ?? 80, rows: start.params.rows ?? 24 }));
    const run = launch({ ...base, stdin: "pipe", pipeGraceMs: PIPE_GRACE_MS });
    await run.spawned;
    return pipeChild(run);
  } catch (error) {
    throw rpcError("internal", `cannot run ${start.shell}: ${(error as Error).message}`);
  }
}
