import { realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

/** The real path when the file exists, else the path as given: links to one file count once. */
export function realPathOf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * The absolute path with every symbolic link in its existing part resolved:
 * where a write to it really lands. The missing rest (a file about to be
 * created, its new folders) is kept as written.
 */
export function realTarget(path: string): string {
  let existing = resolve(path);
  const rest: string[] = [];
  for (;;) {
    try {
      return join(realpathSync(existing), ...rest.reverse());
    } catch {
      const parent = dirname(existing);
      if (parent === existing) return resolve(path);
      rest.push(basename(existing));
      existing = parent;
    }
  }
}

/** Whether `path` is `root` or below it, both taken as absolute paths already resolved. */
export function isWithin(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** Whether `folder` is `root` or inside it, links resolved; a folder that is gone is inside nothing. */
export function isInside(root: string, folder: string): boolean {
  let real: string;
  try {
    real = realpathSync(folder);
  } catch {
    return false;
  }
  return real === root || real.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}
