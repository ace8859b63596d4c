import type { AgentTool, AgentToolUpdateCallback } from "@mariozechner/pi-agent-core";
import { existsSync } from "node:fs";
import { stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { Type, type Static } from "typebox";
import { findExecutable } from "@knightcode/system/util/executable";
import { toolEnv, type ToolContext } from "./context.js";
import { throwIfAborted, ToolError } from "./errors.js";
import { MAX_OUTPUT_BYTES } from "./format.js";
import { OutputCollector } from "./output-collector.js";
import { runInProcessGroup, type GroupRunResult } from "@knightcode/system/process/group-run";
import type { SandboxLaunch } from "@knightcode/system/process/sandbox/command";
import { SandboxRequiredError } from "@knightcode/system/process/sandbox/thread-sandbox";
import { exitedWithCode, killedBySignal } from "./signal-words.js";

const HEAD_BYTES = 20 * 1024;
const TAIL_BYTES = MAX_OUTPUT_BYTES - HEAD_BYTES;
const MAX_SPILL_BYTES = 256 * 1024 * 1024;

const bashParameters = Type.Object({
  command: Type.String({ description: "The command line, run with bash -c." }),
  timeout: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: "Seconds after which the command is killed (default: no limit)." })),
  network: Type.Optional(
    Type.Boolean({
      description:
        "Set to true only when the command needs the network (downloads, package installs, remote git). Where commands run in a sandbox without network, the user is asked to allow it first; elsewhere it changes nothing.",
    }),
  ),
});

export type BashParams = Static<typeof bashParameters>;

export interface BashDetails {
  /** Null while running, and when a signal ended the command. */
  exitCode: number | null;
  signal?: string;
  timedOut?: boolean;
  aborted?: boolean;
  truncated?: boolean;
  fullOutputPath?: string;
}

export interface BashToolOptions {
  /** Between SIGTERM and SIGKILL when a command is stopped (default 2000 ms). */
  killGraceMs?: number;
  /** Least time between two streamed updates (default 100 ms). */
  updateIntervalMs?: number;
  /** Where large outputs are saved whole (default: the OS temporary directory). */
  spillDir?: string;
}

const DESCRIPTION = `Run a shell command with bash -c in the working directory, stdin empty. \
Returns stdout and stderr together; a non-zero exit code makes the call fail, with the output. \
Output over ${MAX_OUTPUT_BYTES / 1024} KiB keeps its first ${HEAD_BYTES / 1024} KiB and last ${TAIL_BYTES / 1024} KiB, \
and the whole output is saved to a file whose path is given. \
Each call starts a new shell: cd and exported variables do not carry over. \
Set timeout (seconds) for commands that might not end; a timeout or an interrupt kills the command and everything it started. \
Do not start interactive programs. Start long-lived background processes with their output redirected (cmd > log 2>&1 &); they run until the thread is unloaded. \
Commands may run in a sandbox: then only the working folder and $TMPDIR are writable (not /tmp), and the network is off unless you set network: true.`;

export function createBashTool(ctx: ToolContext, options: BashToolOptions = {}): AgentTool<typeof bashParameters, BashDetails> {
  return {
    name: "bash",
    label: "Bash",
    description: DESCRIPTION,
    parameters: bashParameters,
    executionMode: "parallel",
    execute: async (toolCallId, params, signal, onUpdate) => {
      throwIfAborted(signal);
      await requireDirectory(ctx.cwd);
      const sandbox = await sandboxFor(ctx, toolCallId, params.network === true);
      const env = toolEnv(ctx);
      const output = new OutputCollector({
        headBytes: HEAD_BYTES,
        tailBytes: TAIL_BYTES,
        spillDir: options.spillDir ?? tmpdir(),
        maxSpillBytes: MAX_SPILL_BYTES,
      });
      const updates = throttledUpdates(output, onUpdate, options.updateIntervalMs ?? 100);
      const shell = await shellPath(env);
      let result: GroupRunResult;
      try {
        result = await runInProcessGroup({
          file: shell,
          // One pipe for both streams keeps their interleaving; on the same line so bash's line numbers hold.
          args: ["-c", `exec 2>&1; ${params.command}`],
          cwd: ctx.cwd,
          env,
          ...(sandbox ? { sandbox } : {}),
          output,
          ...(signal ? { signal } : {}),
          ...(params.timeout !== undefined ? { timeoutMs: Math.ceil(params.timeout * 1000) } : {}),
          killGraceMs: options.killGraceMs ?? 2000,
          onOutput: updates.schedule,
          processes: ctx.processes,
        });
      } catch (error) {
        throw new ToolError("ioError", `Cannot run ${shell}: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        updates.cancel();
        await output.close();
        // The thread owns it from here: the model may still read it, and it goes when the thread does.
        if (output.spillFile !== undefined) ctx.spills?.add(output.spillFile);
      }
      return finishResult(result, output, params, sandbox);
    },
  };
}

/** The sandbox a command of the model's runs in; a sandbox that is required and cannot run refuses the call. */
export async function sandboxFor(ctx: ToolContext, callId: string, wantsNetwork = false): Promise<SandboxLaunch | undefined> {
  try {
    return await ctx.sandbox?.forCommand({ callId, wantsNetwork });
  } catch (error) {
    if (error instanceof SandboxRequiredError) throw new ToolError("notAvailable", error.message);
    throw error;
  }
}

async function requireDirectory(cwd: string): Promise<void> {
  const info = await stat(cwd).catch(() => undefined);
  if (!info?.isDirectory()) throw new ToolError("notFound", `The working directory ${cwd} does not exist.`);
}

/** bash from the thread's PATH, then the usual place, then the user's shell. */
export async function shellPath(env: NodeJS.ProcessEnv): Promise<string> {
  const found = await findExecutable(["bash"], env);
  if (found !== undefined) return found;
  if (existsSync("/bin/bash")) return "/bin/bash";
  return env.SHELL ?? "/bin/sh";
}

function throttledUpdates(output: OutputCollector, onUpdate: AgentToolUpdateCallback<BashDetails> | undefined, intervalMs: number) {
  let timer: NodeJS.Timeout | undefined;
  const emit = (): void => {
    timer = undefined;
    onUpdate?.({ content: [{ type: "text", text: output.render().text }], details: { exitCode: null } });
  };
  return {
    schedule: (): void => {
      if (onUpdate !== undefined && timer === undefined) timer = setTimeout(emit, intervalMs);
    },
    cancel: (): void => clearTimeout(timer),
  };
}

/** What a command that failed for want of a network says, in the usual tools' words. */
const NETWORK_FAILURE =
  /could not resolve|temporary failure in name resolution|name or service not known|network is unreachable|getaddrinfo|EAI_AGAIN|ENOTFOUND|ENETUNREACH|failed to connect|connection refused|no route to host|unable to access 'http/i;

/** What the model needs to know when the sandbox may be why a command failed. */
function sandboxHint(sandbox: SandboxLaunch, text: string): string {
  const hints: string[] = [];
  if (!sandbox.policy.network && NETWORK_FAILURE.test(text)) {
    hints.push("It ran in the sandbox without network access. If it needs the network, run it again with network: true; the user is asked first.");
  }
  if (/read-only file system|EROFS/i.test(text)) {
    hints.push(
      `It ran in the sandbox, where only the working folder and $TMPDIR (${sandbox.policy.tmp}) are writable; /tmp, the home folder and the rest are read-only.`,
    );
  }
  return hints.map((hint) => `\n[${hint}]`).join("");
}

function finishResult(result: GroupRunResult, output: OutputCollector, params: BashParams, sandbox: SandboxLaunch | undefined) {
  const rendered = output.render();
  const details: BashDetails = { exitCode: result.exitCode };
  if (result.signal !== null) details.signal = result.signal;
  if (result.timedOut) details.timedOut = true;
  if (result.aborted) details.aborted = true;
  if (rendered.truncated) details.truncated = true;
  if (rendered.fullOutputPath !== undefined) details.fullOutputPath = rendered.fullOutputPath;
  const text = rendered.text === "" ? "(no output)" : rendered.text.replace(/\n$/, "");
  if (result.timedOut) {
    throw new ToolError("timedOut", `${text}\n\n[Command timed out after ${params.timeout} s and was killed.]`, { ...details });
  }
  if (result.aborted) throw new ToolError("aborted", `${text}\n\n[Command aborted and killed.]`, { ...details });
  if (result.exitCode === 0) return { content: [{ type: "text" as const, text }], details };
  const ending = result.exitCode === null ? killedBySignal(result.signal) : exitedWithCode(result.exitCode);
  const hint = sandbox === undefined ? "" : sandboxHint(sandbox, rendered.text);
  throw new ToolError("commandFailed", `${text}\n\n[Command ${ending}.]${hint}`, { ...details });
}
