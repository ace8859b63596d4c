import { dirname } from "node:path";
import { expandHome, relativeInside, resolveEntryPath } from "./paths.js";

export function hasGlobChars(pattern: string): boolean {
  return /[*?]/.test(pattern);
}

/**
 * A glob as an anchored regular expression over `/`-separated paths: `*` and
 * `?` stay inside one segment, `**` spans any number of segments (`a/**\/b`
 * also matches `a/b`).
 */
export function globToRegExp(glob: string): RegExp {
  let source = "";
  let i = 0;
  while (i < glob.length) {
    const ch = glob[i]!;
    if (ch === "*" && glob[i + 1] === "*") {
      const atSegmentStart = i === 0 || glob[i - 1] === "/";
      if (atSegmentStart && glob[i + 2] === "/") {
        source += "(?:.*/)?";
        i += 3;
      } else {
        source += ".*";
        i += 2;
      }
    } else if (ch === "*") {
      source += "[^/]*";
      i += 1;
    } else if (ch === "?") {
      source += "[^/]";
      i += 1;
    } else {
      source += ch.replace(/[.+^${}()|[\]\\]/g, "\\$&");
      i += 1;
    }
  }
  return new RegExp(`^${source}$`);
}

/** The path and every folder above it, nearest first, up to (not including) the root. */
function withAncestors(path: string): string[] {
  const out = [path];
  let current = path;
  for (;;) {
    const parent = current.includes("/") ? dirname(current) : "";
    if (parent === current || parent === "" || parent === "." || parent === "/") break;
    out.push(parent);
    current = parent;
  }
  return out;
}

/**
 * Matches resource paths against one settings pattern (without its `+`/`-`).
 * A pattern without wildcards names a path (relative to the base, `~` expanded).
 * A glob is tried against the absolute path and the path relative to the base.
 * Either way a match on a containing folder counts, so `-skills/review`
 * disables the skill whose SKILL.md lives there.
 */
export class PathPattern {
  private readonly exact?: string;
  private readonly regex?: RegExp;

  constructor(
    readonly raw: string,
    private readonly base: string,
    home: string,
  ) {
    if (hasGlobChars(raw)) {
      const expanded = expandHome(raw, home);
      this.regex = globToRegExp(expanded.startsWith("./") ? expanded.slice(2) : expanded);
    } else {
      this.exact = resolveEntryPath(raw, base, home);
    }
  }

  matches(absPath: string): boolean {
    const candidates = withAncestors(absPath);
    if (this.exact !== undefined) return candidates.includes(this.exact);
    const rel = relativeInside(absPath, this.base);
    if (rel !== undefined) candidates.push(...withAncestors(rel));
    return candidates.some((candidate) => this.regex!.test(candidate));
  }
}
