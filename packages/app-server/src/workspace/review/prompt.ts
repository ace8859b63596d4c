import type { DiffAnswer, DiffFile, DiffHunk } from "@knightcode/repo/git/diff/types";

/** The most diff text one review prompt carries: past it the diff is cut at a file's or hunk's end, with a note. */
export const MAX_REVIEW_DIFF_CHARS = 200_000;

/** A hunk the review showed the model: the only ones a finding may land on. */
export interface ShownHunk {
  file: DiffFile;
  hunk: DiffHunk;
}

export interface ReviewPrompt {
  text: string;
  /** The hunks shown, by id. */
  shown: Map<string, ShownHunk>;
  /** Hunks left out for the size limit. */
  cutHunks: number;
}

const INSTRUCTIONS = `You are reviewing a code change. Read the diff below (and the files around it when you need more context), \
then report every real problem you find: bugs, security issues, missing error handling, races, wrong or missing tests, \
misleading names or comments. Report each one with the report_finding tool: the file's path, the hunk id from the hunk's \
header, the first and last line of the problem by the new-side line numbers shown at the left of each line, a severity \
(critical, high, medium, low or info), a one-line title and a body saying why it matters. When the fix is clear, give a \
suggestion: the exact text that should replace those lines. Do not report what is fine, and do not change any file. \
When you are done, answer with a short overall summary.`;

/** One hunk as the model reads it: its id, then each line with its new-side number (removed lines have none). */
function hunkText(hunk: DiffHunk): string {
  const out = [`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@ hunk ${hunk.id}`];
  let line = hunk.newStart;
  for (const text of hunk.lines) {
    const prefix = text[0];
    if (prefix === "+" || prefix === " ") out.push(`${String(line++).padStart(6)} ${text}`);
    else out.push(`${" ".repeat(6)} ${text}`);
  }
  return out.join("\n");
}

function fileHeader(file: DiffFile): string {
  const moved = file.oldPath !== undefined && file.oldPath !== file.path ? ` (from ${file.oldPath})` : "";
  const note = file.binary ? ", binary: not shown" : file.tooLarge ? ", too large to show" : file.hunks.length === 0 ? ", no text change" : "";
  return `### ${file.path}${moved} (${file.status}, +${file.additions} -${file.deletions}${note})`;
}

function scopeWords(answer: DiffAnswer, commit: string | undefined): string {
  switch (answer.scope) {
    case "branch":
      return `the changes of this branch against ${answer.against ?? "its base"}, working tree included`;
    case "committed":
      return `commit ${commit ?? ""}`.trim();
    case "lastTurn":
      return `the changes made in turn ${answer.turnId ?? "the last turn"}`;
    default:
      return "the uncommitted changes (HEAD against the working tree)";
  }
}

/**
 * The review turn's user message: the instructions, the focus, then the
 * diff with each hunk's id and new-side line numbers. The diff is cut
 * before it passes MAX_REVIEW_DIFF_CHARS, at a hunk's end, and a note
 * says how much was left out; the model is only shown whole hunks.
 */
export function reviewPrompt(answer: DiffAnswer, options: { focus?: string; commit?: string; maxChars?: number }): ReviewPrompt {
  const max = options.maxChars ?? MAX_REVIEW_DIFF_CHARS;
  const head = [INSTRUCTIONS, `What is under review: ${scopeWords(answer, options.commit)}.`];
  if (options.focus !== undefined) head.push(`The user asks you to focus on:\n${options.focus}`);
  const parts: string[] = [];
  const shown = new Map<string, ShownHunk>();
  let used = 0;
  let cutHunks = 0;
  let cutFiles = 0;
  for (const file of answer.files) {
    const header = fileHeader(file);
    // Once anything is cut, everything after it is: the model reads a diff with one gap, at its end.
    if (cutHunks + cutFiles > 0 || used + header.length > max) {
      cutFiles++;
      cutHunks += file.hunks.length;
      continue;
    }
    parts.push(header);
    used += header.length + 1;
    const fileCut = cutHunks;
    for (const hunk of file.hunks) {
      const text = hunkText(hunk);
      if (cutHunks > 0 || used + text.length > max) {
        cutHunks++;
        continue;
      }
      parts.push(text);
      used += text.length + 1;
      shown.set(hunk.id, { file, hunk });
    }
    if (cutHunks > fileCut) cutFiles++;
  }
  const omitted = answer.filesOmitted ?? 0;
  if (cutHunks > 0 || cutFiles > 0 || omitted > 0) {
    parts.push(
      `[The diff is cut here: ${cutHunks} hunk(s) in ${cutFiles} file(s)${omitted > 0 ? ` and ${omitted} file(s) past the diff's own limit` : ""} are not shown, to keep this review within ${max.toLocaleString("en-US")} characters. Review what is shown; findings can only be on hunks shown.]`,
    );
  }
  const text = [...head, `The diff:\n\n${parts.join("\n")}`].join("\n\n");
  return { text, shown, cutHunks };
}
