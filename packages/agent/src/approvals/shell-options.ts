import type { ShellWord } from "./shell-words.js";

/**
 * Options a program is refused with. `long` names are matched after `--`;
 * with `abbreviations`, any unambiguous-looking prefix of a name counts too,
 * because getopt_long, git and argparse accept `--upload-p` for
 * `--upload-pack`. A single-dash word is refused when it holds any letter of
 * `short` anywhere, so clusters (`-ix`) and attached values (`-xcmd`) are
 * caught at the price of some harmless words.
 */
export interface DenyOptions {
  readonly kind: "deny";
  readonly long: readonly string[];
  readonly short: string;
  readonly abbreviations: boolean;
  /** Long names refused only as written, for parsers that never abbreviate (cargo's `--target-dir` beside `--target`). */
  readonly exact?: readonly string[];
}

/**
 * For programs whose long options take one dash (find, go, tsc): `-exec`
 * and `--exec` alike, never abbreviated. `prefixes` refuses whole families
 * (go's `-test.*`); `ignoreCase` is for tsc, which reads `--OUTDIR` as `--outDir`.
 */
export interface DenySingleDash {
  readonly kind: "denySingleDash";
  readonly names: readonly string[];
  readonly prefixes?: readonly string[];
  readonly ignoreCase?: boolean;
}

/** Only these option words are recognized; any other option refuses the command. */
export interface AllowOptions {
  readonly kind: "allow";
  readonly exact: readonly string[];
  readonly patterns: readonly RegExp[];
}

export type OptionRule = DenyOptions | DenySingleDash | AllowOptions;

/** How the words after a recognized prefix are checked. */
export interface ArgRule {
  /** Free words (paths, refs, messages, test filters) may follow. */
  readonly positionals: boolean;
  readonly options: OptionRule;
  /** A program-specific refusal, for example git's `ext::` transports. */
  readonly check?: (words: readonly ShellWord[]) => string | undefined;
  /**
   * The program only reads the paths it names: it may name a control place
   * (`.git/`, `.knightcode/`) under a grant. A program without it may write
   * what it names, and may not.
   */
  readonly readsOnly?: boolean;
}

export const NO_OPTION_LIMITS: OptionRule = { kind: "deny", long: [], short: "", abbreviations: false };

export function deny(long: readonly string[], short = "", abbreviations = true, exact: readonly string[] = []): DenyOptions {
  return { kind: "deny", long, short, abbreviations, exact };
}

export function denySingleDash(names: readonly string[], more: Pick<DenySingleDash, "prefixes" | "ignoreCase"> = {}): DenySingleDash {
  return { kind: "denySingleDash", names, ...more };
}

export function allow(exact: readonly string[], patterns: readonly RegExp[] = []): AllowOptions {
  return { kind: "allow", exact, patterns };
}

/** Why the words after the prefix make the command unrecognized, or undefined when they are fine. */
export function refuseArgs(rule: ArgRule, words: readonly ShellWord[], shownPrefix: string): string | undefined {
  // Words after a lone `--` are checked like the rest: for some programs they
  // are still options (find), and a path that looks like an option costs a prompt, nothing more.
  for (const word of words) {
    if (word.text === "--") continue;
    if (isOption(word.text)) {
      const why = refuseOption(rule.options, word.text);
      if (why !== undefined) return `\`${shorten(word.text)}\` is refused after \`${shownPrefix}\`: ${why}`;
    } else if (!rule.positionals) {
      return `\`${shownPrefix}\` is recognized only without further arguments, and \`${shorten(word.text)}\` follows`;
    }
  }
  return rule.check?.(words);
}

/** A word a parser would read as an option: a dash followed by something. `-` alone is a positional (stdin). */
export function isOption(text: string): boolean {
  return text.length > 1 && text.startsWith("-");
}

const RISKY = "it can run other programs, load code, write files, or read what it works on from elsewhere";

/** Why the option word is refused, or undefined when it is fine. */
function refuseOption(rule: OptionRule, text: string): string | undefined {
  switch (rule.kind) {
    case "allow": {
      const known = rule.exact.includes(text) || rule.patterns.some((pattern) => pattern.test(text));
      return known ? undefined : "only a short list of options is recognized there";
    }
    case "denySingleDash": {
      const written = optionName(text.replace(/^--?/, ""));
      const name = rule.ignoreCase ? written.toLowerCase() : written;
      const hit = rule.names.includes(name) || (rule.prefixes ?? []).some((prefix) => name.startsWith(prefix));
      return hit ? RISKY : undefined;
    }
    case "deny": {
      if (text.startsWith("--")) {
        // pflag (kubectl, docker) reads `--log_file` as `--log-file`; refusing both spellings costs nothing elsewhere.
        const name = optionName(text.slice(2)).replaceAll("_", "-");
        const hit = rule.long.some((denied) => (rule.abbreviations ? denied.startsWith(name) : denied === name)) || (rule.exact ?? []).includes(name);
        return hit ? RISKY : undefined;
      }
      const letters = text.slice(1);
      return [...rule.short].some((letter) => letters.includes(letter)) ? RISKY : undefined;
    }
  }
}

const optionName = (text: string): string => text.split("=", 1)[0] ?? "";

export const shorten = (text: string): string => (text.length > 40 ? `${text.slice(0, 37)}...` : text);
