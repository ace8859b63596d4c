import { randomBytes } from "node:crypto";
import { ToolError } from "@knightcode/agent/tools/errors";
import type { FindingInput, FindingRecorder, ReviewSource, SavedFinding } from "@knightcode/agent/tools/report-finding";
import { repoRelative } from "@knightcode/repo/git/repo";
import type { LoadedThread } from "../../threads/loaded-thread.js";
import { findingIn } from "../../turns/finding-item.js";
import type { ShownHunk } from "./prompt.js";

/** The new-side lines of a hunk, by number, each without its prefix, and whether it ends the file without a newline. */
function newSideLines(hunk: ShownHunk["hunk"]): Map<number, { text: string; noNewline: boolean }> {
  const lines = new Map<number, { text: string; noNewline: boolean }>();
  let number = hunk.newStart;
  let last: { text: string; noNewline: boolean } | undefined;
  for (const line of hunk.lines) {
    const prefix = line[0];
    if (prefix === "\\") {
      if (last) last.noNewline = true;
      continue;
    }
    last = undefined;
    if (prefix === "-") continue;
    last = { text: line.slice(1), noNewline: false };
    lines.set(number++, last);
  }
  return lines;
}

function refuse(message: string): never {
  throw new ToolError("invalidArgument", message);
}

/**
 * The recorder a review turn's report_finding uses: a finding must name a
 * hunk the review showed, that hunk's file, and lines of its new side.
 * Anything else is refused to the model as the call's error, and nothing
 * is recorded; the model may report it again correctly.
 */
export function findingRecorder(shown: ReadonlyMap<string, ShownHunk>, source: ReviewSource, root: string): FindingRecorder {
  return (input: FindingInput): SavedFinding => {
    const hit = shown.get(input.hunkId);
    if (!hit) refuse(`hunk ${input.hunkId} is not in the diff under review: use the id from a hunk header of the diff you were given`);
    const path = repoRelative(root, input.path);
    if (path !== hit.file.path) refuse(`hunk ${input.hunkId} is in ${hit.file.path}, not ${input.path}`);
    if (input.endLine < input.startLine) refuse(`endLine ${input.endLine} is before startLine ${input.startLine}`);
    const lines = newSideLines(hit.hunk);
    const covered: string[] = [];
    let noNewlineAtEnd = false;
    for (let number = input.startLine; number <= input.endLine; number++) {
      const line = lines.get(number);
      if (!line) {
        const last = hit.hunk.newStart + hit.hunk.newLines - 1;
        refuse(`line ${number} is not on the new side of hunk ${input.hunkId}, which shows lines ${hit.hunk.newStart}-${last}`);
      }
      covered.push(line.text);
      noNewlineAtEnd = line.noNewline;
    }
    const { suggestion, ...rest } = input;
    return {
      findingId: `finding-${randomBytes(8).toString("hex")}`,
      ...rest,
      path: hit.file.path,
      side: "new",
      ...(suggestion === undefined ? {} : { suggestion }),
      source,
      lines: covered,
      ...(noNewlineAtEnd ? { noNewlineAtEnd } : {}),
    };
  };
}

/**
 * The newest finding on the thread's branch that `matches`: read from the
 * report_finding results its transcript kept, so it outlives a restart.
 */
export async function savedFinding(thread: LoadedThread, matches: (finding: SavedFinding) => boolean): Promise<SavedFinding | undefined> {
  await thread.file.loadBranch();
  return findingIn(thread.file.branch(), matches);
}
