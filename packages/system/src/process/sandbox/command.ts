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
 * The sandbox's first words, before the command: "started" on fd 3, a pipe
 * whose reading end only the caller holds. bubblewrap's --die-with-parent
 * takes hold only once the sandbox is set up, so a caller killed in those
 * milliseconds (a server's SIGKILL) would leave a sandbox that starts the
 * command anyway, with no one to stop it. Then the pipe has no reader: the
 * write kills the shell (SIGPIPE; or fails, where that is ignored, and the
 * shell exits), and the command never starts.
 */
const LIFELINE = "printf 'started\\n' >&3 || exit 125";

/** The command alone, once the caller is known to be there: it gets no fd 3. */
const THEN_EXEC = [LIFELINE, "exec 3>&-", 'exec "$@"'].join("\n");

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
  LIFELINE,
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
 * The command line that runs `file args` in the sandbox. With `pipeBack`
 * (bubblewrap only), the caller gives the child a pipe on fd 3 and reads
 * "started" there (see LIFELINE), then, with `keepBackground`, the
 * command's exit status. A child without one (a terminal's) runs the
 * command alone, and cannot keep its background.
 */
export function sandboxCommand(
  sandbox: SandboxLaunch,
  file: string,
  args: readonly string[],
  options: { cwd: string; keepBackground: boolean; pipeBack: boolean },
): { file: string; args: string[] } {
  if (sandbox.kind === "seatbelt") return { file: sandbox.binary, args: [...seatbeltArgs(sandbox.policy), file, ...args] };
  const script = options.pipeBack ? (options.keepBackground ? KEEP_BACKGROUND : THEN_EXEC) : undefined;
  const inner = script === undefined ? [file, ...args] : ["/bin/sh", "-c", script, "knightcode-sandbox", file, ...args];
  return { file: sandbox.binary, args: [...bwrapArgs(sandbox.policy, options.cwd), "--", ...inner] };
}

/** Whether a child that can be given a pipe on fd 3 gets one (see sandboxCommand). */
export function pipesBack(sandbox: SandboxLaunch | undefined): boolean {
  return sandbox?.kind === "bwrap";
}
