import { isAbsolute, join, relative, resolve, sep } from "node:path";

/** `~` and `~/x` name the home directory; `~user` forms are left alone. */
export function expandHome(path: string, home: string): string {
  if (path === "~") return home;
  if (path.startsWith("~/") || path.startsWith(`~${sep}`)) return join(home, path.slice(2));
  return path;
}

/** A settings path made absolute: `~` expands, anything relative is taken from the scope base. */
export function resolveEntryPath(entry: string, base: string, home: string): string {
  return resolve(base, expandHome(entry, home));
}

/** The path relative to `base` with `/` separators, or undefined when it lies outside. */
export function relativeInside(path: string, base: string): string | undefined {
  const rel = relative(base, path);
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return undefined;
  return rel.split(sep).join("/");
}

export { realPathOf } from "@knightcode/system/fs/real-target";
