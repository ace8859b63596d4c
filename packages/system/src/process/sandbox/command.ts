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
 * A terminal's lifeline: node-pty gives its child no fd 3, but the
 * terminal is a pipe of the same kind. Its other end (the master) is the
 * caller's alone, and once the caller is gone the terminal is hung up,
 * where a write fails (EIO). So the sandbox first writes one NUL byte to
 * the terminal, which a terminal shows as nothing and the caller drops
 * (see PtyLaunched): if that fails, the shell exits, and the command never
 * starts.
 */
const TERMINAL_LIFELINE = "printf '\\000' || exit 125";

/** The command alone, on the terminal, once the caller is known to be there. */
const TERMINAL_THEN_EXEC = [TERMINAL_LIFELINE, 'exec "$@"'].join("\n");

/** The byte a sandboxed terminal's output begins with (see TERMINAL_LIFELINE). */
export const TERMINAL_LIFELINE_BYTE = 0;

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
 * The command line that runs `file args` in the sandbox. Under bubblewrap
 * the command starts only once the caller is known to be there: with
 * `lifeline: "pipe"` the caller gives the child a pipe on fd 3 and reads
 * "started" there (see LIFELINE), then, with `keepBackground`, the
 * command's exit status; with `"terminal"` (a child on a terminal, which
 * cannot be given fd 3) the sandbox writes to the terminal first (see
 * TERMINAL_LIFELINE), and cannot keep its background.
 */
export function sandboxCommand(
  sandbox: SandboxLaunch,
  file: string,
  args: readonly string[],
  options: { cwd: string; keepBackground: boolean; lifeline: "pipe" | "terminal" },
): { file: string; args: string[] } {
  if (sandbox.kind === "seatbelt") return { file: sandbox.binary, args: [...seatbeltArgs(sandbox.policy), file, ...args] };
  const script = options.lifeline === "terminal" ? TERMINAL_THEN_EXEC : options.keepBackground ? KEEP_BACKGROUND : THEN_EXEC;
  const inner = ["/bin/sh", "-c", script, "knightcode-sandbox", file, ...args];
  return { file: sandbox.binary, args: [...bwrapArgs(sandbox.policy, options.cwd), "--", ...inner] };
}

/** Whether a child that can be given a pipe on fd 3 gets one (see sandboxCommand). */
export function pipesBack(sandbox: SandboxLaunch | undefined): boolean {
  return sandbox?.kind === "bwrap";
}
