import { ToolError } from "../errors.js";

/**
 * The in-process grep runs JavaScript regular expressions over one line at
 * a time, where rg runs Rust's regex crate. The patterns models write mean
 * the same in both; this file bridges the Rust spellings that JavaScript
 * reads differently or not at all:
 * - inline flags at the very start, `(?i)` and `(?s)` (`(?m)` and `(?u)`
 *   change nothing on a single line); other inline flags are refused;
 * - `\A` and `\z` (start and end of the line here), `\pL` without braces,
 *   named groups written `(?P<name>...)`, POSIX classes such as `[[:alpha:]]`
 *   (ASCII, as in Rust), and a `]` right after `[` or `[^` as a literal.
 * Left as they are: JavaScript accepts lookaround and backreferences, which
 * rg refuses, and rejects Rust-only syntax such as `(?x)` or `\Q...\E`. `.`
 * matches any character but a newline in both, as does `\s` within a line.
 * A pattern is compiled with the `u` flag when it allows, for Unicode-aware
 * classes and case folding as in Rust, else without (JavaScript then accepts
 * escapes such as `\"` or `\-`, which Rust allows too).
 */
export interface LinePattern {
  /** Tested on one line, without its "\n". */
  line: RegExp;
  /**
   * The same with `^` and `$` at every line, run once over a block of lines:
   * no match there means no line of the block matches, and most blocks of
   * most files hold none. Absent for lookaround, which could look past a
   * line's end.
   */
  block?: RegExp;
}

export function compilePattern(pattern: string, options: { literal?: boolean; ignoreCase?: boolean }): LinePattern {
  const line = compileLine(pattern, options);
  if (/\(\?<?[=!]/.test(line.source)) return { line };
  return { line, block: new RegExp(line.source, `${line.flags}m`) };
}

function compileLine(pattern: string, options: { literal?: boolean; ignoreCase?: boolean }): RegExp {
  let flags = options.ignoreCase ? "is" : "s";
  let source: string;
  if (options.literal) source = pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  else {
    const inline = /^\(\?([a-zA-Z]+)\)/.exec(pattern);
    if (inline) {
      for (const flag of inline[1]!) {
        if (flag === "i" && !flags.includes("i")) flags += "i";
        else if (!"imsu".includes(flag)) throw new ToolError("invalidArgument", `The inline flag (?${flag}) is not supported by the in-process search.`);
      }
    }
    source = translate(inline ? pattern.slice(inline[0].length) : pattern);
  }
  try {
    return new RegExp(source, `${flags}u`);
  } catch {
    try {
      return new RegExp(source, flags);
    } catch (error) {
      throw new ToolError("invalidArgument", `The pattern is not a valid regular expression: ${(error as Error).message}`);
    }
  }
}

const POSIX_CLASSES: Record<string, string> = {
  alnum: "0-9A-Za-z",
  alpha: "A-Za-z",
  ascii: "\\x00-\\x7F",
  blank: "\\t ",
  cntrl: "\\x00-\\x1F\\x7F",
  digit: "0-9",
  graph: "!-~",
  lower: "a-z",
  print: " -~",
  punct: "!-\\/:-@\\[-`{-~",
  space: "\\t\\n\\v\\f\\r ",
  upper: "A-Z",
  word: "0-9A-Za-z_",
  xdigit: "0-9A-Fa-f",
};

/** Rewrites the Rust spellings listed above, leaving escaped characters alone. */
function translate(pattern: string): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (char === "\\") {
      const next = pattern[i + 1];
      const after = pattern[i + 2];
      if (!inClass && next === "A") out += "^";
      else if (!inClass && next === "z") out += "$";
      else if ((next === "p" || next === "P") && after !== undefined && after !== "{") {
        out += `\\${next}{${after}}`;
        i++;
      } else out += char + (next ?? "");
      i++;
    } else if (inClass) {
      const posix = char === "[" && pattern[i + 1] === ":" ? /^\[:([a-z]+):\]/.exec(pattern.slice(i)) : null;
      if (posix && POSIX_CLASSES[posix[1]!] !== undefined) {
        out += POSIX_CLASSES[posix[1]!];
        i += posix[0].length - 1;
      } else {
        if (char === "]") inClass = false;
        out += char;
      }
    } else if (char === "[") {
      inClass = true;
      out += char;
      if (pattern[i + 1] === "^") out += pattern[++i];
      if (pattern[i + 1] === "]") {
        out += "\\]";
        i++;
      }
    } else if (pattern.startsWith("(?P<", i)) {
      out += "(?<";
      i += 3;
    } else out += char;
  }
  return out;
}
