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
