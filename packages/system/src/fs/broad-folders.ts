import { homedir } from "node:os";
import { dirname, isAbsolute, parse } from "node:path";
import { isWithin, realTarget } from "./real-target.js";

/**
 * Folders too broad to be a project. In a thread started in one of them,
 * "inside the workspace" would mean the whole system, a user's whole home
 * (`.bashrc`, `.ssh/`, the agent folder) or a system folder's files, so no
 * write counts as inside: each asks as an outside write.
 */
const BROAD_EXACT = [
  "/home",
  "/Users",
  "/root",
  "/tmp",
  "/var",
  "/var/tmp",
  "/opt",
  "/srv",
  "/mnt",
  "/media",
  "/Volumes",
  "/private",
  "/private/tmp",
  "/private/var",
  "/run",
  "/nix",
  "/snap",
  "/usr",
  "/usr/local",
];

/** System folders with everything below them. `/usr/src` and `/usr/local/src`, where containers keep projects, are not among them. */
const SYSTEM_TREES = [
  "/etc",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/boot",
  "/dev",
  "/proc",
  "/sys",
  "/System",
  "/Library",
  "/Applications",
  "/private/etc",
  "/nix/store",
  "/usr/bin",
  "/usr/sbin",
  "/usr/lib",
  "/usr/lib32",
  "/usr/lib64",
  "/usr/libexec",
  "/usr/include",
  "/usr/share",
  "/usr/local/bin",
  "/usr/local/sbin",
  "/usr/local/lib",
  "/usr/local/etc",
  "/usr/local/include",
  "/usr/local/share",
  "/var/lib",
  "/var/log",
  "/var/cache",
  "/var/spool",
  "/var/mail",
  "/var/run",
  "/var/db",
];

/** Windows' system folders, from the environment that names them. */
function windowsTrees(env: NodeJS.ProcessEnv): string[] {
  if (process.platform !== "win32") return [];
  return [env.SystemRoot, env.ProgramFiles, env["ProgramFiles(x86)"], env.ProgramData].filter((path): path is string => Boolean(path));
}

/** Home folders: the server user's, and any folder right inside `/home` or `/Users`. */
function isHomeFolder(folder: string, env: NodeJS.ProcessEnv): boolean {
  const homes = [homedir(), env.HOME, env.USERPROFILE].filter((path): path is string => typeof path === "string" && isAbsolute(path));
  if (homes.some((home) => realTarget(home) === folder)) return true;
  return ["/home", "/Users"].includes(dirname(folder));
}

/**
 * What makes `cwd` too broad to be a project, as a phrase for the approval
 * reason (`the file system root`, `a home folder`, `a system folder`), or
 * undefined for an ordinary folder. Links are resolved first.
 */
export function broadFolder(cwd: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const folder = realTarget(cwd);
  if (parse(folder).root === folder) return "the file system root";
  if (isHomeFolder(folder, env)) return "a home folder";
  if (BROAD_EXACT.includes(folder)) return "a system folder";
  if ([...SYSTEM_TREES, ...windowsTrees(env)].some((tree) => isWithin(tree, folder))) return "a system folder";
  return undefined;
}
