import type { SandboxPolicy } from "./policy.js";

/**
 * A Seatbelt profile (macOS `sandbox-exec`) for the same policy as the
 * bubblewrap one, as far as Seatbelt can say it. Paths are never spliced
 * into the profile's text: each is a parameter (`-D NAME=path`) the profile
 * names with `(param "NAME")`, so no path can change the profile.
 *
 * Every rule is a deny over `(allow default)`, and each deny's filter says
 * exactly what it covers (`require-all` / `require-not`), so the profile
 * means the same whichever order Seatbelt weighs its rules in.
 *
 * What macOS cannot give: a pid namespace. Others' processes stay visible
 * to `ps`; reading their details is denied.
 */
export interface SeatbeltProfile {
  profile: string;
  params: Record<string, string>;
}

/** Writes that are never a file's content: the terminal and the null device. */
const DEVICE_WRITES = ['(literal "/dev/null")', '(literal "/dev/zero")', '(regex #"^/dev/fd/")', '(regex #"^/dev/tty")', '(literal "/dev/dtracehelper")'];

export function seatbeltProfile(policy: SandboxPolicy): SeatbeltProfile {
  const params: Record<string, string> = {};
  const param = (prefix: string, index: number, value: string): string => {
    const name = `${prefix}_${index}`;
    params[name] = value;
    return `(param "${name}")`;
  };
  const writable = [param("TMP", 0, policy.tmp), ...policy.writable.map((path, i) => param("WRITABLE", i, path))];
  const readOnly = policy.readOnly.map((path, i) => param("READ_ONLY", i, path));
  const hidden = policy.hidden.map((entry, i) => ({ name: param("HIDDEN", i, entry.path), folder: entry.folder }));
  const underWritable = writable.map((name) => `(subpath ${name})`);
  // A writable folder inside a hidden one (a worktree in the agent folder) is seen and written all the same.
  const notReexposed = (filter: string): string =>
    underWritable.length === 0 ? filter : `(require-all ${filter} ${underWritable.map((w) => `(require-not ${w})`).join(" ")})`;
  const hiddenFilters = hidden.map(({ name, folder }) => notReexposed(folder ? `(subpath ${name})` : `(literal ${name})`));
  const lines = ["(version 1)", "(allow default)"];
  lines.push(`(deny file-write* (require-all ${[...underWritable, ...DEVICE_WRITES].map((f) => `(require-not ${f})`).join(" ")}))`);
  if (readOnly.length > 0) lines.push(`(deny file-write* ${readOnly.map((name) => `(subpath ${name})`).join(" ")})`);
  if (hiddenFilters.length > 0) lines.push(`(deny file-read* file-write* ${hiddenFilters.join(" ")})`);
  if (!policy.network) lines.push("(deny network*)");
  // No pid namespace here: at least another process's arguments and environment stay unreadable.
  lines.push("(deny process-info* (target others))");
  return { profile: lines.join("\n"), params };
}

/** `sandbox-exec`'s arguments before the command: the profile and its parameters. */
export function seatbeltArgs(policy: SandboxPolicy): string[] {
  const { profile, params } = seatbeltProfile(policy);
  return ["-p", profile, ...Object.entries(params).flatMap(([name, value]) => ["-D", `${name}=${value}`])];
}
