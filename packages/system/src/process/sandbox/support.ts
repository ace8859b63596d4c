import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, isAbsolute, join } from "node:path";
import { launch } from "../launch.js";
import { bwrapArgs } from "./bwrap.js";
import type { SandboxKind } from "./policy.js";

/** Whether this machine can sandbox commands, as `server/diagnostics` reports it. */
export interface SandboxSupport {
  kind: SandboxKind;
  available: boolean;
  /** Why not, when it is not available. */
  reason?: string;
  /** The sandbox program, when available. */
  binary?: string;
}

/** Names the bubblewrap binary to use; empty means none (a machine, or a test, without a sandbox). */
export const BWRAP_ENV = "KNIGHTCODE_BWRAP";
const SEATBELT = "/usr/bin/sandbox-exec";
const PROBE_TIMEOUT_MS = 10_000;

let probed: Promise<SandboxSupport> | undefined;

/**
 * Finds and tries the platform's sandbox once per process: the first run
 * with the very flags every sandboxed command gets tells whether user
 * namespaces are allowed here. Later calls share the answer.
 */
export function sandboxSupport(env: NodeJS.ProcessEnv = process.env): Promise<SandboxSupport> {
  probed ??= probe(env, process.platform);
  return probed;
}

async function probe(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): Promise<SandboxSupport> {
  if (platform === "darwin") {
    if (!isExecutable(SEATBELT)) return { kind: "seatbelt", available: false, reason: `${SEATBELT} is missing` };
    return tryRun("seatbelt", SEATBELT, ["-p", "(version 1)(allow default)", "/usr/bin/true"]);
  }
  if (platform !== "linux") return { kind: "none", available: false, reason: `no sandbox is supported on ${platform}` };
  const binary = findBwrap(env);
  if (binary === undefined) {
    const reason =
      env[BWRAP_ENV] !== undefined
        ? `${BWRAP_ENV} names no executable bwrap (${JSON.stringify(env[BWRAP_ENV])})`
        : "bubblewrap (bwrap) is not installed: apt-get install bubblewrap";
    return { kind: "bwrap", available: false, reason };
  }
  const args = bwrapArgs({ tmp: tmpdir(), writable: [], readOnly: [], hidden: [], network: false }, "/");
  return tryRun("bwrap", binary, [...args, "--", "/bin/sh", "-c", "exit 0"]);
}

/** bwrap from KNIGHTCODE_BWRAP, else from the PATH's absolute folders, as a real path: resolved once, so no later PATH change swaps it. */
function findBwrap(env: NodeJS.ProcessEnv): string | undefined {
  const named = env[BWRAP_ENV];
  if (named !== undefined) return named !== "" && isAbsolute(named) && isExecutable(named) ? realpathSync(named) : undefined;
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir === "" || !isAbsolute(dir)) continue;
    const candidate = join(dir, "bwrap");
    if (isExecutable(candidate)) return realpathSync(candidate);
  }
  return undefined;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

async function tryRun(kind: "bwrap" | "seatbelt", binary: string, args: string[]): Promise<SandboxSupport> {
  let stderr = "";
  try {
    const run = launch({ file: binary, args, cwd: "/", env: { PATH: "/usr/bin:/bin" }, killGraceMs: 0, timeoutMs: PROBE_TIMEOUT_MS });
    run.stdout.resume();
    run.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < 2048) stderr += chunk.toString("utf8");
    });
    const end = await run.done;
    if (end.code === 0) return { kind, available: true, binary };
    const said = stderr.trim().split("\n")[0] ?? "";
    const why = end.timedOut ? `it did not answer within ${PROBE_TIMEOUT_MS} ms` : said !== "" ? said : `it exited with ${end.code ?? end.signal}`;
    return { kind, available: false, reason: `${binary} cannot run here: ${why}` };
  } catch (error) {
    return { kind, available: false, reason: `${binary} cannot be started: ${(error as Error).message}` };
  }
}
