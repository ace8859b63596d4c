import { dirname } from "node:path";
import picomatch from "picomatch";
import { expandHome, relativeInside, resolveEntryPath } from "./paths.js";

/** Wildcards, character classes and brace lists make a pattern a glob; anything else names a path. */
export function hasGlobChars(pattern: string): boolean {
  return /[*?[{]/.test(pattern);
}

const MATCH_OPTIONS: picomatch.PicomatchOptions = {
  // A glob's `*` covers dot files and folders too: settings name resources, not a shell's visible files.
  dot: true,
  // Without it `[!a]` is a class of `!` and `a`, not the negation a shell reads.
  posix: true,
  // A leading `!` and `@(...)`-style groups are plain text: settings already say + and -.
  nonegate: true,
  noextglob: true,
};

/** Parentheses are plain text in a path (`notes (old).md`), not the regex groups picomatch would make of them. */
function literalParentheses(glob: string): string {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i]!;
    if (ch === "\\" && i + 1 < glob.length) {
      out += ch + glob[++i];
    } else {
      out += ch === "(" || ch === ")" ? `\\${ch}` : ch;
    }
  }
  return out;
}

/**
 * A glob as an anchored regular expression over `/`-separated paths: `*` and
 * `?` stay inside one segment, `**` spans any number of segments (`a/**\/b`
 * also matches `a/b`), `{a,b}` and `{1..3}` expand, `[ab]` and `[!ab]` are
 * classes, and `\` escapes the next character.
 */
export function globToRegExp(glob: string): RegExp {
  return picomatch.makeRe(literalParentheses(glob), MATCH_OPTIONS);
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
