import { bwrapArgs } from "./bwrap.js";
import type { SandboxPolicy } from "./policy.js";
import { seatbeltArgs } from "./seatbelt.js";

/** How one command runs sandboxed: which sandbox program, the policy, and what its environment gains. */
export interface SandboxLaunch {
  kind: "bwrap" | "seatbelt";
  /** The sandbox program's absolute path. */
  binary: string;
  policy: SandboxPolicy;
  /** Variables set inside: TMPDIR, and caches that would otherwise be written in the read-only home. */
  env: Record<string, string>;
}

/**
 * Keeps a sandbox alive while the command's background processes run. In
 * bubblewrap's pid namespace everything dies with the namespace's first
 * process, so the shell runs under this one: it reports the shell's exit
 * status on fd 3 (the caller's "the command is done"), lets go of every
 * pipe, and waits until it and the namespace's init are the only
 * processes left. Counting /proc's entries in the shell itself starts no
 * process; one `sleep` a second is the whole cost.
 */
const KEEP_BACKGROUND = [
  '"$@"',
  "s=$?",
  "printf '%s\\n' \"$s\" >&3",
  "exec 3>&- >/dev/null 2>&1 </dev/null",
  "while :; do",
  "  n=0",
  "  for p in /proc/[0-9]*; do n=$((n+1)); done",
  '  [ "$n" -le 2 ] && exit "$s"',
  "  sleep 1",
  "done",
].join("\n");

/**
 * The command line that runs `file args` in the sandbox. With
 * `keepBackground` (bubblewrap only), the caller must give the child a
 * pipe on fd 3 and read the exit status there.
 */
export function sandboxCommand(
  sandbox: SandboxLaunch,
  file: string,
  args: readonly string[],
  options: { cwd: string; keepBackground: boolean },
): { file: string; args: string[] } {
  if (sandbox.kind === "seatbelt") return { file: sandbox.binary, args: [...seatbeltArgs(sandbox.policy), file, ...args] };
  const inner = options.keepBackground ? ["/bin/sh", "-c", KEEP_BACKGROUND, "knightcode-sandbox", file, ...args] : [file, ...args];
  return { file: sandbox.binary, args: [...bwrapArgs(sandbox.policy, options.cwd), "--", ...inner] };
}

/** Whether the command reports its exit on fd 3 (see sandboxCommand). */
export function reportsStatus(sandbox: SandboxLaunch | undefined, keepBackground: boolean | undefined): boolean {
  return sandbox?.kind === "bwrap" && keepBackground === true;
}
