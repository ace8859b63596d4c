/** One word of a command, as the program it starts will receive it. */
export interface ShellWord {
  /** The word after quote removal: exactly one argv entry. */
  readonly text: string;
  /** Some part of the word was written in quotes. */
  readonly quoted: boolean;
}

export type WordSplit = { words: ShellWord[]; reason?: undefined } | { words: undefined; reason: string };

/**
 * Characters that mean nothing to bash outside quotes. Anything else either
 * ends a command, expands, or is a character we choose not to reason about.
 * `~` is here but checked again: it expands at the start of a word and after
 * `=` or `:`.
 */
const PLAIN = /^[A-Za-z0-9_\-./,:=+@%^~]$/;

/** Printable text allowed inside quotes beyond ASCII: no spaces, controls, format or private characters. */
const VISIBLE_NON_ASCII = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

/**
 * Splits a command into words the way bash would, for a subset of bash in
 * which no expansion of any kind happens: every accepted command's words are
 * its argv, character for character. Everything outside the subset (an
 * operator, an expansion, an escape, a comment, a line break, a control or
 * invisible character, an unterminated quote) refuses the whole command.
 */
export function splitShellWords(command: string): WordSplit {
  const words: ShellWord[] = [];
  let text = "";
  let quoted = false;
  let started = false;
  let previous = "";
  let quote: "'" | '"' | undefined;
  for (const ch of command) {
    if (quote !== undefined) {
      if (ch === quote) quote = undefined;
      else {
        const refusal = refuseQuoted(ch, quote);
        if (refusal !== undefined) return { words: undefined, reason: refusal };
        text += ch;
      }
      previous = "";
      continue;
    }
    if (ch === " " || ch === "\t") {
      if (started) words.push({ text, quoted });
      text = "";
      quoted = false;
      started = false;
      previous = "";
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = ch;
      quoted = true;
      started = true;
      previous = "";
      continue;
    }
    const refusal = refuseUnquoted(ch, previous);
    if (refusal !== undefined) return { words: undefined, reason: refusal };
    text += ch;
    started = true;
    previous = ch;
  }
  if (quote !== undefined) return { words: undefined, reason: "an unterminated quote" };
  if (started) words.push({ text, quoted });
  return { words };
}

function refuseUnquoted(ch: string, previous: string): string | undefined {
  if (PLAIN.test(ch)) {
    if (ch !== "~") return undefined;
    if (previous !== "" && previous !== "=" && previous !== ":") return undefined;
    return "`~`, which expands to a home directory";
  }
  return describeSpecial(ch) ?? "a character outside the recognized subset";
}

function refuseQuoted(ch: string, quote: "'" | '"'): string | undefined {
  const code = ch.codePointAt(0)!;
  if (code < 0x20 || code === 0x7f) return describeSpecial(ch);
  if (code > 0x7f) return VISIBLE_NON_ASCII.test(ch) ? undefined : describeSpecial(ch);
  if (quote === "'") return undefined;
  // Inside double quotes these still expand or escape.
  if (ch === "$" || ch === "`" || ch === "\\" || ch === "!") return describeSpecial(ch);
  return undefined;
}

const SPECIAL: Readonly<Record<string, string>> = {
  ";": "`;`, which runs a second command",
  "&": "`&`, which chains commands or runs one in the background",
  "|": "`|`, which pipes into or chains another command",
  "<": "`<`, which redirects input or starts a here-document or process substitution",
  ">": "`>`, which redirects output or starts a process substitution",
  "(": "`(`, which starts a subshell or process substitution",
  ")": "`)`, which closes a subshell",
  "{": "`{`, which starts a brace group or brace expansion",
  "}": "`}`, which closes a brace group or brace expansion",
  $: "`$`, which expands a variable or substitutes a command",
  "`": "a backtick, which substitutes a command",
  "\\": "a backslash, which escapes the next character",
  "#": "`#`, which starts a comment",
  "*": "`*`, a glob",
  "?": "`?`, a glob",
  "[": "`[`, a glob",
  "]": "`]`, part of a glob",
  "!": "`!`, which negates a pipeline or expands history",
  "\n": "a line break, which separates commands",
  "\r": "a carriage return, which can hide text",
  "\0": "a NUL byte",
};

function describeSpecial(ch: string): string | undefined {
  const known = SPECIAL[ch];
  if (known !== undefined && Object.hasOwn(SPECIAL, ch)) return known;
  const code = ch.codePointAt(0)!;
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
  if (code < 0x20 || code === 0x7f) return `the control character ${hex}`;
  if (code > 0x7f) {
    return VISIBLE_NON_ASCII.test(ch) ? `the non-ASCII character ${hex} outside quotes` : `the invisible or spacing character ${hex}`;
  }
  return undefined;
}
