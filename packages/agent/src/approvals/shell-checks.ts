import { isOption, shorten } from "./shell-options.js";
import type { ShellWord } from "./shell-words.js";

/** A program-specific refusal of the words after a prefix: why they are refused, or undefined. */
export type WordCheck = (words: readonly ShellWord[]) => string | undefined;

/** The first refusal of several checks. */
export const allOf =
  (...checks: WordCheck[]): WordCheck =>
  (words) =>
    checks.reduce<string | undefined>((found, check) => found ?? check(words), undefined);

/** `ext::` and `fd::` remote helpers run commands; refuse any `::` rather than list helpers. */
export const noRemoteHelper: WordCheck = (words) =>
  words.some((word) => word.text.includes("::")) ? "`::` can name a remote helper that runs a command" : undefined;

/** tsc and pytest read more arguments, options included, from a file named `@file`. */
export const noResponseFile: WordCheck = (words) => {
  const word = words.find((w) => w.text.startsWith("@"));
  return word ? `\`${shorten(word.text)}\` names a file of further arguments` : undefined;
};

/**
 * For programs that load code or configuration from the folders of the
 * paths they are given (pytest's conftest.py, prettier's and eslint's config
 * files, go's packages) or write beside them (tsc's emitted files): a path
 * that leaves the working folder reaches files nobody in this project looked at.
 */
export const staysInFolder: WordCheck = (words) => {
  const word = words.find((w) => !isOption(w.text) && (w.text.startsWith("/") || w.text.split("/").includes("..")));
  return word ? `\`${shorten(word.text)}\` leaves the working folder, where the program may load or write files` : undefined;
};

/** Network remotes: a scheme that names a host, or scp-like `[user@]host:path` (no `/` before the first `:`, as git decides). */
const NETWORK_URL = /^(https?|ssh|git|git\+ssh|ssh\+git):\/\/[^/-]/i;
const SCP_LIKE = /^[^/:-][^/:]*:/;

const ANY_URL = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;

/** Another scheme runs the remote helper `git-remote-<scheme>`, whatever program that is. */
const isNetworkRemote = (text: string): boolean => (ANY_URL.test(text) ? NETWORK_URL.test(text) : SCP_LIKE.test(text) && !/^file:/i.test(text));

/**
 * `git remote add <name> <url>` and `set-url <name> <url> [<old>]`: every
 * word after the name must be a network URL. A local path or a `file://`
 * URL (even one inside the folder) makes a later push run the receiving
 * repository's hooks, which whoever wrote that repository chose. The values
 * of `-t` and `-m` count as words too: refusing them costs a question.
 */
export const networkRemotesOnly: WordCheck = (words) => {
  const positionals: string[] = [];
  let afterDashes = false;
  for (const { text } of words) {
    if (!afterDashes && text === "--") afterDashes = true;
    else if (afterDashes || !isOption(text)) positionals.push(text);
  }
  const local = positionals.slice(1).find((text) => !isNetworkRemote(text));
  return local === undefined ? undefined : `\`${shorten(local)}\` is not a network URL: pushing to a local repository runs its hooks`;
};

/**
 * jq programs can read files of their own: `import "path" as $x` loads any
 * JSON file by a path relative to the folder, `include` and `modulemeta`
 * read modules, and `env`/`$ENV` the environment. Any word holding one of
 * these names is refused, a field that happens to share it included.
 */
export const noJqFileAccess: WordCheck = (words) => {
  const word = words.find((w) => /import|include|modulemeta|env/i.test(w.text));
  return word ? `\`${shorten(word.text)}\` may make jq read a module, a data file or the environment` : undefined;
};
