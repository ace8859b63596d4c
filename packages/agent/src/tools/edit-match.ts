import { ToolError } from "./errors.js";

/** Where to replace, in the LF-normalised text, and with what. */
export interface Replacement {
  start: number;
  end: number;
  text: string;
  /** Found only by the whitespace-tolerant line comparison. */
  fuzzy: boolean;
}

/**
 * Finds the one place `oldText` occurs in `text` (both LF-normalised). An
 * exact match wins; without one, lines are compared with leading and
 * trailing whitespace ignored, and `newText` is re-indented when the file's
 * indentation differs from `oldText`'s consistently. Zero or several places
 * are errors the model can act on.
 */
export function findReplacement(text: string, oldText: string, newText: string, shownPath: string): Replacement {
  const exact = countOccurrences(text, oldText);
  if (exact.count === 1) return { start: exact.first, end: exact.first + oldText.length, text: newText, fuzzy: false };
  if (exact.count > 1) {
    throw new ToolError(
      "ambiguousMatch",
      `oldText occurs ${exact.count} times in ${shownPath}; it must occur exactly once. Include more surrounding lines in oldText to pick one place.`,
    );
  }
  const fuzzy = fuzzyReplacement(text, oldText, newText, shownPath);
  if (fuzzy !== undefined) return fuzzy;
  throw new ToolError(
    "noMatch",
    `oldText was not found in ${shownPath}. It must match the file exactly, whitespace included; read the file again to see its current contents.`,
  );
}

function countOccurrences(text: string, needle: string): { count: number; first: number } {
  const first = text.indexOf(needle);
  let count = 0;
  for (let at = first; at !== -1; at = text.indexOf(needle, at + 1)) count++;
  return { count, first };
}

function fuzzyReplacement(text: string, oldText: string, newText: string, shownPath: string): Replacement | undefined {
  // A trailing newline ends the last line rather than adding an empty one.
  const wholeLines = oldText.endsWith("\n");
  const oldLines = (wholeLines ? oldText.slice(0, -1) : oldText).split("\n");
  if (oldLines.every((line) => line.trim() === "")) return undefined;
  const fileLines = text.split("\n");
  const wanted = oldLines.map((line) => line.trim());
  const starts: number[] = [];
  for (let s = 0; s + wanted.length <= fileLines.length; s++) {
    if (wanted.every((line, i) => fileLines[s + i]!.trim() === line)) starts.push(s);
  }
  if (starts.length === 0) return undefined;
  if (starts.length > 1) {
    throw new ToolError(
      "ambiguousMatch",
      `oldText was not found exactly in ${shownPath}, and ignoring whitespace it matches ${starts.length} places; ` +
        `it must match exactly once. Include more surrounding lines in oldText to pick one place.`,
    );
  }
  const first = starts[0]!;
  const matched = fileLines.slice(first, first + oldLines.length);
  const start = lineOffset(fileLines, first);
  let end = start + matched.join("\n").length;
  if (wholeLines && end < text.length) end++;
  return { start, end, text: reindent(newText, oldLines, matched), fuzzy: true };
}

function lineOffset(lines: readonly string[], index: number): number {
  let offset = 0;
  for (let i = 0; i < index; i++) offset += lines[i]!.length + 1;
  return offset;
}

const indentOf = (line: string): string => /^[ \t]*/.exec(line)![0];

/**
 * When every non-blank line of the file's match is indented like oldText's
 * with one prefix swapped (for example four more spaces, or tabs for
 * spaces), newText gets the same swap; otherwise it is used as given.
 */
function reindent(newText: string, oldLines: readonly string[], fileLines: readonly string[]): string {
  const pairs = oldLines.map((line, i) => [line, fileLines[i]!] as const).filter(([line]) => line.trim() !== "");
  const [firstOld, firstFile] = pairs[0]!;
  const from = indentOf(firstOld);
  const to = indentOf(firstFile);
  if (from === to) return newText;
  const consistent = pairs.every(([oldLine, fileLine]) => {
    const oldIndent = indentOf(oldLine);
    return oldIndent.startsWith(from) && indentOf(fileLine) === to + oldIndent.slice(from.length);
  });
  if (!consistent) return newText;
  return newText
    .split("\n")
    .map((line) => (line.trim() !== "" && line.startsWith(from) ? to + line.slice(from.length) : line))
    .join("\n");
}
