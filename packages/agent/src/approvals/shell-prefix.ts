import { type ArgRule, isOption, refuseArgs, shorten } from "./shell-options.js";
import { namedPathRefusal, type ShellFolder } from "./shell-paths.js";
import { type CommandNode, entry, PROGRAMS } from "./shell-programs.js";
import { refusalFor, runsOtherCode } from "./shell-refusals.js";
import { type ShellWord, splitShellWords } from "./shell-words.js";

export type ShellKind = "bash" | "powershell";

/**
 * A positively recognized prefix, or why the command gets none. `namesPath`
 * marks a refusal for a path the command names (outside the folder,
 * protected, in /proc): the command may look ordinary, so the user is told.
 */
export type ShellPrefixAnalysis = { prefix: string[] } | { prefix: undefined; reason: string; namesPath?: true };

/** A recognized command form: its prefix and how the words after it were checked. */
type Recognized = { prefix: string[]; rule: ArgRule };
type Refusal = { prefix: undefined; reason: string };

/** Longer commands are not analyzed: bounded work, and nothing hidden past what a dialog shows. */
export const MAX_ANALYZED_COMMAND_LENGTH = 8192;

/** Words that may stand in a prefix: a program, a subcommand, a script or target name. */
const PREFIX_WORD = /^[A-Za-z0-9._+-]+$/;
/** Script and target names the project defines; `:` is common there (`build:prod`). */
const PROJECT_NAME = /^[A-Za-z0-9][A-Za-z0-9._:+-]*$/;
/** Words shown without quotes in the dialog. */
const SHOWN_PLAIN = /^[A-Za-z0-9._:+/-]+$/;
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/;

const refuse = (reason: string): Refusal => ({ prefix: undefined, reason });

/**
 * The command prefix `command` may be approved by, for the session, or why
 * it has none. Only simple, recognized forms get one: a single command of a
 * known program, with its subcommand words, no expansion anywhere and none of
 * the options that make it run or load something else. Without `folder` it
 * is pure (no I/O). With it, a command also gets no prefix when a word names
 * a path (links followed) outside the folder or one `folder` protects: so a
 * grant covers a command only while everything it names stays in the folder.
 */
export function analyzeShellCommand(command: string, shell: ShellKind = "bash", folder?: ShellFolder): ShellPrefixAnalysis {
  if (shell === "powershell") return refuse("PowerShell commands are not analyzed, so no prefix is offered");
  if (shell !== "bash") return refuse(`unknown shell ${JSON.stringify(shell)}`);
  if (typeof command !== "string") return refuse("the command is not a string");
  if (command.length > MAX_ANALYZED_COMMAND_LENGTH) {
    return refuse(`the command is longer than ${MAX_ANALYZED_COMMAND_LENGTH} characters`);
  }
  const split = splitShellWords(command);
  if (split.words === undefined) return refuse(`the command contains ${split.reason}`);
  const recognized = recognize(split.words);
  if (recognized.prefix === undefined || folder === undefined) return withoutRule(recognized);
  const { prefix, rule } = recognized;
  const refusal = namedPathRefusal(split.words.slice(prefix.length), folder, rule.readsOnly ? "read" : "write");
  return refusal === undefined ? { prefix } : { prefix: undefined, reason: refusal, namesPath: true };
}

/** True only when `command` on its own yields exactly `granted` (in `folder`, when given): sharing its first words is not enough. */
export function prefixCovers(granted: readonly string[], command: string, shell: ShellKind = "bash", folder?: ShellFolder): boolean {
  const { prefix } = analyzeShellCommand(command, shell, folder);
  if (prefix === undefined || !Array.isArray(granted) || granted.length !== prefix.length) return false;
  return prefix.every((word, i) => granted[i] === word);
}

/** The prefix as the approval dialog shows it, for example `npm run build`. */
export function formatPrefix(prefix: readonly string[]): string {
  return prefix.map((word) => (SHOWN_PLAIN.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`)).join(" ");
}

/** The prefix of a command already split into words (exported for tests that check bash's own argv). */
export function prefixFromWords(words: readonly ShellWord[]): ShellPrefixAnalysis {
  return withoutRule(recognize(words));
}

const withoutRule = (recognized: Recognized | Refusal): ShellPrefixAnalysis => (recognized.prefix === undefined ? recognized : { prefix: recognized.prefix });

function recognize(words: readonly ShellWord[]): Recognized | Refusal {
  const first = words[0];
  if (first === undefined) return refuse("the command is empty");
  if (first.quoted) return refuse("the program name is quoted");
  if (ASSIGNMENT.test(first.text)) return refuse("a variable assignment comes before the command");
  if (first.text.includes("/")) return refuse("the program is given by path, not by name");
  const refusal = refusalFor(first.text);
  if (refusal !== undefined) return refuse(refusal);
  const program = PREFIX_WORD.test(first.text) ? entry(PROGRAMS, first.text) : undefined;
  if (program === undefined) return refuse(`\`${shorten(first.text)}\` is not a recognized program`);
  return walk(program, [first.text], words);
}

function walk(start: CommandNode, prefix: string[], words: readonly ShellWord[]): Recognized | Refusal {
  let node = start;
  let at = prefix.length;
  for (;;) {
    const next = words[at];
    if (next === undefined || next.quoted || isOption(next.text)) break;
    if (node.delegate !== undefined) return delegate(node.delegate, prefix, words.slice(at));
    const sub = PREFIX_WORD.test(next.text) ? entry(node.subcommands, next.text) : undefined;
    if (sub !== undefined) node = sub;
    else if (node.named !== undefined && isProjectName(next.text)) node = node.named;
    else break;
    prefix.push(next.text);
    at++;
  }
  const rest = words.slice(at);
  const shown = prefix.join(" ");
  if (node.args === undefined) return refuse(missingStep(node, shown, rest[0]));
  const echoed = rest.find((word) => entry(node.subcommands, word.text) !== undefined || node.reserved?.includes(word.text));
  if (echoed !== undefined) return refuse(`\`${shorten(echoed.text)}\` after \`${shown}\` could be read as its subcommand`);
  const refused = refuseArgs(node.args, rest, shown);
  return refused === undefined ? { prefix, rule: node.args } : refuse(refused);
}

function delegate(tools: readonly string[], prefix: string[], rest: readonly ShellWord[]): Recognized | Refusal {
  const tool = rest[0]!.text;
  if (!tools.includes(tool)) return refuse(`\`${prefix.join(" ")}\` is recognized only with ${tools.join(", ")}`);
  const inner = recognize(rest);
  return inner.prefix === undefined ? inner : { prefix: [...prefix, ...inner.prefix], rule: inner.rule };
}

/** Script and target names may not be interpreters or wrappers: yarn runs a binary when no script has the name. */
function isProjectName(text: string): boolean {
  return PROJECT_NAME.test(text) && !runsOtherCode(text);
}

function missingStep(node: CommandNode, shown: string, next: ShellWord | undefined): string {
  if (next === undefined) return `\`${shown}\` needs a recognized subcommand`;
  if (next.quoted) return `the word after \`${shown}\` is quoted`;
  if (isOption(next.text)) return `options before the subcommand of \`${shown}\` are not recognized`;
  const what = node.named !== undefined ? "name" : "subcommand";
  return `\`${shown} ${shorten(next.text)}\` is not a recognized ${what}`;
}
