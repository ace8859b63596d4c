import type { GitContext } from "../ops/context.js";
import { DiffInputError } from "./errors.js";
import { parseHunkId } from "./hunk-id.js";
import { ACTION_BUDGET, readDiff, type DiffRequest } from "./read.js";
import type { DiffFile, DiffHunk, DiffScope } from "./types.js";

export interface FoundHunk {
  scope: DiffScope;
  file: DiffFile;
  hunk: DiffHunk;
}

/** The scopes a review comment's hunk may come from, in the order they are searched. */
const SEARCHED: readonly DiffScope[] = ["uncommitted", "unstaged", "staged", "lastTurn", "branch"];

/**
 * The hunk with this id in the current diff of any scope a reviewer reads
 * (uncommitted, unstaged, staged, lastTurn, branch), read at the context
 * and whitespace setting the id carries. Undefined when no scope has it
 * (changed since, or not an id of ours). A scope that cannot be read (no
 * branch to compare with, no last turn) is passed over.
 */
export async function findHunk(ctx: GitContext, id: string, thread: Pick<DiffRequest, "lastTurn" | "worktreeBase"> = {}): Promise<FoundHunk | undefined> {
  const shape = parseHunkId(id);
  if (!shape) return undefined;
  for (const scope of SEARCHED) {
    if (scope === "lastTurn" && !thread.lastTurn) continue;
    let files: DiffFile[];
    try {
      files = (await readDiff(ctx, { ...thread, scope, ...shape }, { budget: ACTION_BUDGET })).answer.files;
    } catch (error) {
      if (error instanceof DiffInputError) continue;
      throw error;
    }
    for (const file of files) {
      const hunk = file.hunks.find((candidate) => candidate.id === id);
      if (hunk) return { scope, file, hunk };
    }
  }
  return undefined;
}

/**
 * The lines of a hunk whose line number on `side` lies in
 * `startLine..endLine`, with their prefixes, joined by newlines: what a
 * comment on those lines quotes. A "\ No newline" marker follows the line
 * it belongs to. Empty when no line of the hunk is in the range.
 */
export function quoteLines(hunk: DiffHunk, side: "old" | "new", startLine: number, endLine: number): string {
  let oldLine = hunk.oldStart;
  let newLine = hunk.newStart;
  let previousQuoted = false;
  const quoted: string[] = [];
  for (const line of hunk.lines) {
    const prefix = line[0];
    if (prefix === "\\") {
      if (previousQuoted) quoted.push(line);
      continue;
    }
    const number = side === "old" ? (prefix === "+" ? undefined : oldLine) : prefix === "-" ? undefined : newLine;
    previousQuoted = number !== undefined && number >= startLine && number <= endLine;
    if (previousQuoted) quoted.push(line);
    if (prefix !== "+") oldLine++;
    if (prefix !== "-") newLine++;
  }
  return quoted.join("\n");
}
