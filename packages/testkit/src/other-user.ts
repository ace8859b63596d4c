import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import { readFileSync } from "node:fs";

/**
 * Another local user, for tests written as that user's attack: its processes
 * run under a uid and gid of their own (no supplementary groups), so the
 * kernel treats them as any other account would be treated. Needs root; the
 * uid has no password entry and owns nothing until a test makes it.
 */
export interface OtherUser {
  uid: number;
  gid: number;
  /** Spawns `command` as this user (cwd `/` unless given; a minimal environment unless given). */
  spawn(command: string, args: readonly string[], options?: SpawnOptions): ChildProcess;
  /** Runs `command` as this user to its end. */
  run(command: string, args: readonly string[], options?: SpawnOptions): Promise<{ code: number | null; stdout: string; stderr: string }>;
  /** Runs a Node.js script (the text of an ES module) as this user. */
  node(script: string, options?: SpawnOptions): ChildProcess;
}

/** The first uid from 42420 up that no account in /etc/passwd uses. */
function unusedUid(): number {
  let taken = new Set<number>();
  try {
    taken = new Set(
      readFileSync("/etc/passwd", "utf8")
        .split("\n")
        .map((line) => Number(line.split(":")[2])),
    );
  } catch {
    // No passwd file: every uid is free.
  }
  let uid = 42420;
  while (taken.has(uid)) uid++;
  return uid;
}

/** Why a test cannot act as another user here, for node:test's `skip`; false when it can. */
export const NO_OTHER_USER: string | false =
  process.platform === "win32"
    ? "Windows has no uids"
    : process.getuid?.() !== 0
      ? "acting as another local user needs root (CI and the dev container run as root)"
      : false;

let cached: OtherUser | undefined;

/** Another local user, or undefined where `NO_OTHER_USER` says why not. */
export function otherUser(): OtherUser | undefined {
  if (NO_OTHER_USER !== false) return undefined;
  if (cached) return cached;
  const uid = unusedUid();
  const as = (options: SpawnOptions = {}): SpawnOptions => ({ cwd: "/", env: { PATH: "/usr/local/bin:/usr/bin:/bin" }, ...options, uid, gid: uid });
  const spawnAs = (command: string, args: readonly string[], options?: SpawnOptions) => spawn(command, args, as(options));
  cached = {
    uid,
    gid: uid,
    spawn: spawnAs,
    run: (command, args, options) =>
      new Promise((resolve, reject) => {
        const child = spawnAs(command, args, { stdio: ["ignore", "pipe", "pipe"], ...options });
        let stdout = "";
        let stderr = "";
        child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
        child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
        child.once("error", reject);
        child.once("close", (code) => resolve({ code, stdout, stderr }));
      }),
    node: (script, options) => spawnAs(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "pipe"], ...options }),
  };
  return cached;
}
