import { globMatcher } from "./globs.js";

interface Rule {
  negated: boolean;
  directoryOnly: boolean;
  /** Tested on the path below the ignore file's folder, or on the name alone when the pattern has no `/`. */
  anchored: boolean;
  matches: (subject: string) => boolean;
}

/**
 * One ignore file in gitignore syntax, matched the way rg and fd match it:
 * each path on its own, never through its parent folders, because a walk
 * does not enter a folder that is ignored. (The `ignore` package asks about
 * the parents as `git check-ignore` does, which would hide everything below
 * a folder the model names outright, such as node_modules/some-lib, where
 * rg and fd search it.)
 */
export class IgnoreFile {
  private constructor(private readonly rules: readonly Rule[]) {}

  static parse(text: string): IgnoreFile {
    const rules: Rule[] = [];
    for (const line of text.split("\n")) {
      const rule = parseLine(line);
      if (rule !== undefined) rules.push(rule);
    }
    return new IgnoreFile(rules);
  }

  /**
   * True when ignored, false when a `!` rule keeps it, undefined when no
   * rule speaks of it; the last matching rule decides. `relative` uses `/`.
   */
  decide(relative: string, isDirectory: boolean): boolean | undefined {
    const name = relative.slice(relative.lastIndexOf("/") + 1);
    for (let i = this.rules.length - 1; i >= 0; i--) {
      const rule = this.rules[i]!;
      if (rule.directoryOnly && !isDirectory) continue;
      if (rule.matches(rule.anchored ? relative : name)) return !rule.negated;
    }
    return undefined;
  }
}

function parseLine(raw: string): Rule | undefined {
  let line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
  // Trailing spaces do not count unless the last one is escaped.
  line = line.replace(/(?<!\\) +$/, "");
  if (line === "" || line.startsWith("#")) return undefined;
  const negated = line.startsWith("!");
  if (negated) line = line.slice(1);
  else if (line.startsWith("\\!") || line.startsWith("\\#")) line = line.slice(1);
  const directoryOnly = line.endsWith("/");
  if (directoryOnly) line = line.slice(0, -1);
  if (line === "") return undefined;
  const anchored = line.includes("/");
  if (line.startsWith("/")) line = line.slice(1);
  const glob = globMatcher(line);
  // `dir/**` is everything inside dir, not dir itself (picomatch would take both).
  const inside = line.endsWith("/**") ? line.slice(0, -3) : undefined;
  const matches = inside === undefined ? glob : (subject: string) => subject !== inside && glob(subject);
  return { negated, directoryOnly, anchored, matches };
}
