import type { DiffHunk } from "@knightcode/app-server-protocol";

/** One line of a hunk with its numbers on each side (absent on the side it does not exist on). */
export interface NumberedLine {
  kind: "context" | "add" | "del" | "note";
  text: string;
  old?: number;
  new?: number;
}

/** Walks a hunk from its starts: context lines count on both sides, `-` on the old, `+` on the new, `\` on neither. */
export function numberLines(hunk: DiffHunk): NumberedLine[] {
  let oldLine = hunk.oldStart;
  let newLine = hunk.newStart;
  return hunk.lines.map((line) => {
    const mark = line[0];
    const text = line.slice(1);
    if (mark === "+") return { kind: "add", text, new: newLine++ };
    if (mark === "-") return { kind: "del", text, old: oldLine++ };
    if (mark === "\\") return { kind: "note", text: line };
    return { kind: "context", text, old: oldLine++, new: newLine++ };
  });
}

/** The line range a hunk covers on one side, for the comment form's limits. */
export function sideRange(hunk: DiffHunk, side: "old" | "new"): { min: number; max: number } {
  const start = side === "old" ? hunk.oldStart : hunk.newStart;
  const count = side === "old" ? hunk.oldLines : hunk.newLines;
  return { min: start, max: Math.max(start, start + count - 1) };
}

/** How a revert's confirmation names one hunk: its file, the lines it spans now, and its counts. */
export function describeHunk(path: string, hunk: DiffHunk): { title: string; body: string } {
  const added = hunk.lines.filter((l) => l.startsWith("+")).length;
  const removed = hunk.lines.filter((l) => l.startsWith("-")).length;
  const span = (start: number, count: number) => (count <= 1 ? `line ${start}` : `lines ${start}–${start + count - 1}`);
  const where = hunk.newLines > 0 ? span(hunk.newStart, hunk.newLines) : `${span(hunk.oldStart, hunk.oldLines)} (old)`;
  const counts = `${added} added and ${removed} removed ${added + removed === 1 ? "line" : "lines"}`;
  return {
    title: `Revert ${where} of ${path}?`,
    body: `This hunk of ${path} (${where}, +${added} −${removed}) goes back as it was: the working tree loses its ${counts}. The index is not changed.`,
  };
}
