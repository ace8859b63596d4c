import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { GitCommandError, GitConflictError } from "../errors.js";
import type { GitContext } from "../ops/context.js";
import { diffChanged } from "./apply.js";
import { git } from "./context.js";
import { quotePath } from "./quote.js";

/** A reviewer's replacement for lines of a file, and those lines as the reviewer read them. */
export interface Suggestion {
  /** Relative to the repository root. */
  path: string;
  startLine: number;
  endLine: number;
  /** Lines startLine..endLine as they were read, each without its newline (a CRLF file's CR stays). */
  lines: readonly string[];
  /** The last of `lines` ended the file without a newline. */
  noNewlineAtEnd?: boolean;
  /** The replacement text; empty deletes the lines. */
  text: string;
}

/** The replacement's lines: a final newline ends the last line rather than adding an empty one. */
function replacementLines(text: string, crlf: boolean): string[] {
  if (text === "") return [];
  const lines = (text.endsWith("\n") ? text.slice(0, -1) : text).split("\n");
  return crlf ? lines.map((line) => (line.endsWith("\r") ? line : `${line}\r`)) : lines;
}

/** The file's lines as they stand, and whether its last line ends without a newline. */
async function currentLines(root: string, path: string): Promise<{ lines: string[]; noNewlineAtEnd: boolean } | undefined> {
  let text: string;
  try {
    text = await readFile(join(root, path), "utf8");
  } catch {
    return undefined;
  }
  const lines = text.split("\n");
  const noNewlineAtEnd = !text.endsWith("\n") && text !== "";
  if (!noNewlineAtEnd) lines.pop();
  return { lines, noNewlineAtEnd };
}

/** One zero-context hunk replacing lines `start`..: git applies it only where those very lines stand. */
function patchText(path: string, start: number, old: readonly string[], next: readonly string[], atEnd: boolean): string {
  const noNewline = "\\ No newline at end of file\n";
  const a = quotePath(Buffer.from(`a/${path}`));
  const b = quotePath(Buffer.from(`b/${path}`));
  const out = [
    `diff --git ${a} ${b}\n`,
    `--- ${a}\n`,
    `+++ ${b}\n`,
    `@@ -${start},${old.length} +${next.length === 0 ? start - 1 : start},${next.length} @@\n`,
  ];
  const side = (sign: string, lines: readonly string[]) => {
    for (const [i, line] of lines.entries()) {
      out.push(`${sign}${line}\n`);
      if (atEnd && i === lines.length - 1) out.push(noNewline);
    }
  };
  side("-", old);
  side("+", next);
  return out.join("");
}

/**
 * Writes a suggestion over its lines in the working tree, as a patch git
 * applies whole or not at all. The lines must stand in the file exactly as
 * they were read, at the same numbers; otherwise the answer is
 * `diffChanged` and nothing changes. A CRLF file's replacement lines get
 * their CR. Returns the path changed. The caller holds the checkout.
 */
export async function applySuggestion(ctx: GitContext, suggestion: Suggestion): Promise<{ paths: string[] }> {
  const { path, startLine, endLine } = suggestion;
  const current = await currentLines(ctx.repo.root, path);
  if (!current) throw diffChanged(`${path} is no longer in the working tree`, [path]);
  const old = current.lines.slice(startLine - 1, endLine);
  const atEnd = current.noNewlineAtEnd && endLine === current.lines.length;
  const same = old.length === suggestion.lines.length && old.every((line, i) => line === suggestion.lines[i]) && atEnd === (suggestion.noNewlineAtEnd === true);
  if (!same) throw diffChanged(`lines ${startLine}-${endLine} of ${path} changed since the review read them`, [path]);
  const crlf = old.length > 0 && old.every((line) => line.endsWith("\r"));
  const patch = patchText(path, startLine, old, replacementLines(suggestion.text, crlf), atEnd);
  try {
    await git(ctx, ["apply", "--whitespace=nowarn", "--unidiff-zero", "-"], { input: Buffer.from(patch, "utf8"), readOnly: false });
  } catch (error) {
    if (error instanceof GitCommandError && !error.gitMissing && error.code !== null) {
      throw new GitConflictError("patchFailed", `git could not apply the suggestion to ${path}`, { paths: [path], output: error.stderr });
    }
    throw error;
  }
  return { paths: [path] };
}
