// Which processes a soaked server left behind. A background job started
// through the bash tool leaves the server's tree as soon as its shell exits
// (it is re-parented to init or a subreaper), so a walk of parent ids alone
// misses it. Three views, each catching what the others cannot:
//   - tagged: every process whose environment carries the run's tag, which the
//     server and everything it starts inherit (exact, survives re-parenting);
//   - recorded: the pids the bash calls wrote to a file, checked with kill -0
//     and confirmed by the tag, so a reused pid is not counted;
//   - tree: descendants of the server by parent id, and members of the process
//     groups those descendants lead (what is still attached to the server; a
//     shell that exited in milliseconds is no longer there to name its group).
// Zombies are counted apart: they hold no memory or files, and whether one
// is reaped depends on this machine's init, not on the server.
import { readFileSync, readdirSync } from "node:fs";

/** pid, parent pid, process group and state of one process, or undefined once it is gone. */
export function statOf(pid) {
  let text;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // The command name is in parentheses and may itself hold spaces or parentheses.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return { pid, state: fields[0], ppid: Number(fields[1]), pgid: Number(fields[2]) };
}

function allPids() {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
}

function hasTag(pid, tag) {
  try {
    return readFileSync(`/proc/${pid}/environ`).includes(tag);
  } catch {
    return false;
  }
}

function split(stats) {
  const live = stats.filter((s) => s.state !== "Z");
  return { live: live.map((s) => s.pid), zombies: stats.length - live.length };
}

/** Processes carrying `tag` in their environment, other than `exclude` (the server). */
export function tagged(tag, exclude = []) {
  const stats = allPids()
    .filter((pid) => !exclude.includes(pid) && hasTag(pid, tag))
    .map(statOf)
    .filter(Boolean);
  return split(stats);
}

/** The pids listed in `file` (one a line) that still run with `tag` in their environment. */
export function recorded(file, tag) {
  let pids;
  try {
    pids = readFileSync(file, "utf8").split("\n").filter(Boolean).map(Number);
  } catch {
    pids = [];
  }
  const stats = pids
    .filter((pid) => hasTag(pid, tag))
    .map(statOf)
    .filter(Boolean);
  return { written: pids.length, ...split(stats) };
}

/** Descendants of `root` by parent id, plus members of the groups they lead. */
export function tree(root) {
  const stats = allPids().map(statOf).filter(Boolean);
  const children = new Map();
  for (const s of stats) children.set(s.ppid, [...(children.get(s.ppid) ?? []), s]);
  const found = new Map();
  const stack = [...(children.get(root) ?? [])];
  while (stack.length > 0) {
    const s = stack.pop();
    if (found.has(s.pid)) continue;
    found.set(s.pid, s);
    stack.push(...(children.get(s.pid) ?? []));
  }
  const leaders = new Set([...found.keys()]);
  for (const s of stats) if (s.pid !== root && leaders.has(s.pgid)) found.set(s.pid, s);
  return split([...found.values()]);
}

/** Sends SIGKILL to each pid in turn; a pid already gone is skipped. */
export function killEach(pids) {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // ESRCH: it ended on its own.
    }
  }
}
