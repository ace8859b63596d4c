import { sep } from "node:path";
import type { SandboxPolicy } from "./policy.js";

/** One mount of the sandbox's view, applied over the read-only root. */
type Mount = { kind: "hide"; dest: string; folder: boolean } | { kind: "write"; dest: string } | { kind: "readOnly"; dest: string };

/** At one path, what comes later wins: hiding first, then the writable view, then what stays read-only inside it. */
const RANK: Record<Mount["kind"], number> = { hide: 0, write: 1, readOnly: 2 };

/**
 * The namespaces and the view of the file system: a new user, pid, ipc,
 * uts and cgroup namespace (and a network namespace of its own, with only
 * its loopback, unless the network is allowed), every capability dropped
 * (root in the sandbox could otherwise unmount what hides the agent
 * folder), the whole file system read-only, a fresh /dev and a /proc that
 * shows the sandbox's processes only, so neither the server's environment
 * nor its command line can be read. The sandbox dies with the server.
 */
export function bwrapArgs(policy: SandboxPolicy, cwd: string): string[] {
  const args = ["--die-with-parent", "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"];
  if (!policy.network) args.push("--unshare-net");
  args.push("--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc");
  const mounts = planMounts(policy);
  for (const mount of mounts) args.push(...mountArgs(mount));
  // Last, once the folders shown through them exist: what hides a folder cannot be written either.
  for (const mount of mounts) if (mount.kind === "hide" && mount.folder) args.push("--remount-ro", mount.dest);
  args.push("--chdir", cwd);
  return args;
}

function mountArgs(mount: Mount): string[] {
  switch (mount.kind) {
    case "hide":
      return mount.folder ? ["--tmpfs", mount.dest] : ["--ro-bind", "/dev/null", mount.dest];
    case "write":
      return ["--bind", mount.dest, mount.dest];
    case "readOnly":
      return ["--ro-bind", mount.dest, mount.dest];
  }
}

/**
 * The mounts in the order bwrap must apply them: a path's ancestors first,
 * so a folder made writable inside a hidden one (a worktree in the agent
 * folder) shows through, and a hidden file inside a writable folder stays
 * hidden. A mount that would change nothing is left out: a read-only path
 * not inside a writable folder, a hidden one inside what is hidden already.
 * Leaving them out also keeps bwrap from creating mount points on disk.
 */
export function planMounts(policy: SandboxPolicy): Mount[] {
  const wanted: Mount[] = [
    { kind: "write", dest: policy.tmp },
    ...policy.hidden.map((hidden): Mount => ({ kind: "hide", dest: hidden.path, folder: hidden.folder })),
    ...policy.writable.map((dest): Mount => ({ kind: "write", dest })),
    ...policy.readOnly.map((dest): Mount => ({ kind: "readOnly", dest })),
  ];
  wanted.sort((a, b) => comparePaths(a.dest, b.dest) || RANK[a.kind] - RANK[b.kind]);
  const kept: Mount[] = [];
  for (const mount of wanted) {
    const around = [...kept].reverse().find((outer) => contains(outer.dest, mount.dest));
    // The state of `mount.dest` before this mount: the read-only root, a writable view, or hidden.
    const state = around === undefined || around.kind === "readOnly" ? "readOnly" : around.kind === "write" ? "writable" : "hidden";
    if (mount.kind === "readOnly" && state !== "writable") continue;
    if (mount.kind === "hide" && state === "hidden") continue;
    if (kept.some((other) => other.dest === mount.dest && other.kind === mount.kind)) continue;
    kept.push(mount);
  }
  return kept;
}

function segments(path: string): string[] {
  return path.split(sep).filter((part) => part !== "");
}

/** Ancestors before descendants; otherwise by name. */
function comparePaths(a: string, b: string): number {
  const left = segments(a);
  const right = segments(b);
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    if (left[i] !== right[i]) return left[i]! < right[i]! ? -1 : 1;
  }
  return left.length - right.length;
}

function contains(outer: string, inner: string): boolean {
  const o = segments(outer);
  const i = segments(inner);
  return o.length <= i.length && o.every((part, index) => part === i[index]);
}
