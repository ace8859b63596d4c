import picomatch from "picomatch";
import { sep } from "node:path";

/**
 * rg and fd match globs, and the patterns of ignore files, with Rust's
 * globset: a leading dot is an ordinary character, `*` stops at `/`, `{a,b}`
 * is either (even in ignore files, where git reads braces literally), and
 * parentheses are literal. picomatch, told so, reads the same patterns the
 * same way; `[!a]` is spelled `[^a]` for it.
 */
export function globMatcher(glob: string): (subject: string) => boolean {
  return picomatch(glob.replace(/(^|[^\\])\[!/g, "$1[^"), { dot: true, nonegate: true, noextglob: true });
}

/** A path below a search directory as globs see it: `/` between names on every system. */
export function slashPath(relative: string): string {
  return sep === "/" ? relative : relative.split(sep).join("/");
}

export type GlobVerdict = "include" | "exclude" | undefined;

/**
 * grep's `glob`, read as rg reads `--glob`: gitignore syntax relative to the
 * search directory (a glob without `/` matches names at any depth, `!` in
 * front excludes, `/` at the end means directories only). A file the glob
 * includes is searched even when ignore files would skip it, and a file it
 * does not include is not; a directory is entered unless the glob excludes
 * it or ignore files skip it, so undefined leaves the choice to them.
 */
export function grepGlob(glob: string): (relative: string, isDirectory: boolean) => GlobVerdict {
  const negated = glob.startsWith("!");
  let pattern = negated ? glob.slice(1) : glob;
  const directoriesOnly = pattern.endsWith("/");
  if (directoriesOnly) pattern = pattern.slice(0, -1);
  const anchored = pattern.includes("/");
  const matches = globMatcher(pattern.replace(/^\//, ""));
  return (relative, isDirectory) => {
    const subject = anchored ? relative : relative.slice(relative.lastIndexOf("/") + 1);
    const hit = (!directoriesOnly || isDirectory) && matches(subject);
    if (negated) return hit ? "exclude" : undefined;
    if (hit) return "include";
    return isDirectory ? undefined : "exclude";
  };
}

/**
 * find's `pattern`, read as the fd command line the tool builds: on the name
 * alone, or, when it holds a `/`, on the path below the search directory
 * (on the absolute path when it starts with `/`).
 */
export function findPattern(pattern: string): (relative: string, absolute: string, name: string) => boolean {
  const trimmed = pattern.replace(/^(\.\/)+/, "");
  const matches = globMatcher(trimmed);
  if (!trimmed.includes("/")) return (_relative, _absolute, name) => matches(name);
  if (trimmed.startsWith("/")) return (_relative, absolute) => matches(slashPath(absolute));
  return (relative) => matches(relative);
}
