import type { FileChange } from "@knightcode/schema/items";
import { diffLines, EQUAL, DELETE, INSERT, type Op } from "./line-diff.js";

/**
 * One file a tool changed, as reported in a tool result's
 * `details.fileChanges`: the wire's record with its diff always there
 * (three lines of context, empty when the contents did not change). The
 * path is relative to the thread's cwd when inside it, else absolute.
 */
export type ToolFileChange = Required<FileChange>;

const CONTEXT_LINES = 3;

/**
 * A unified diff from `oldText` to `newText`, in the form `git diff` and
 * `patch` read: `---`/`+++` headers with `a/` and `b/` prefixes, `@@` hunks
 * with three lines of context, and "\ No newline at end of file" markers.
 * `null` stands for a file that does not exist (`/dev/null`); identical
 * texts give "".
 */
export function unifiedDiff(oldText: string | null, newText: string | null, path: string): string {
  if (oldText === newText) return "";
  const ops = diffLines(splitLines(oldText ?? ""), splitLines(newText ?? ""));
  const hunks = renderHunks(ops);
  if (hunks === "") return "";
  const name = path.replace(/^\/+/, "");
  const from = oldText === null ? "/dev/null" : `a/${name}`;
  const to = newText === null ? "/dev/null" : `b/${name}`;
  return `--- ${from}\n+++ ${to}\n${hunks}`;
}

/** Lines with their "\n", so that a last line without one differs from the same line with it. */
function splitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  while (start < text.length) {
    const newline = text.indexOf("\n", start);
    const end = newline === -1 ? text.length : newline + 1;
    lines.push(text.slice(start, end));
    start = end;
  }
  return lines;
}

function renderHunks(ops: readonly Op[]): string {
  let out = "";
  let oldLine = 0;
  let newLine = 0;
  let i = 0;
  while (i < ops.length) {
    const first = nextChange(ops, i);
    if (first === ops.length) break;
    for (; i < first - CONTEXT_LINES; i++) {
      oldLine++;
      newLine++;
    }
    const end = hunkEnd(ops, first);
    out += renderHunk(ops.slice(i, end), oldLine, newLine);
    for (; i < end; i++) {
      if (ops[i]!.kind !== INSERT) oldLine++;
      if (ops[i]!.kind !== DELETE) newLine++;
    }
  }
  return out;
}

function nextChange(ops: readonly Op[], from: number): number {
  let i = from;
  while (i < ops.length && ops[i]!.kind === EQUAL) i++;
  return i;
}

/** Where the hunk that starts changing at `first` ends: changes closer than twice the context join it. */
function hunkEnd(ops: readonly Op[], first: number): number {
  let lastChange = first;
  let i = first;
  while (i < ops.length) {
    if (ops[i]!.kind !== EQUAL) {
      lastChange = i++;
      continue;
    }
    const next = nextChange(ops, i);
    if (next === ops.length || next - i > 2 * CONTEXT_LINES) break;
    i = next;
  }
  return Math.min(ops.length, lastChange + 1 + CONTEXT_LINES);
}

function renderHunk(ops: readonly Op[], oldStart: number, newStart: number): string {
  let oldCount = 0;
  let newCount = 0;
  let body = "";
  for (const op of ops) {
    if (op.kind !== INSERT) oldCount++;
    if (op.kind !== DELETE) newCount++;
    const sign = op.kind === EQUAL ? " " : op.kind === DELETE ? "-" : "+";
    body += op.line.endsWith("\n") ? `${sign}${op.line}` : `${sign}${op.line}\n\\ No newline at end of file\n`;
  }
  return `@@ -${range(oldStart, oldCount)} +${range(newStart, newCount)} @@\n${body}`;
}

/** `start,count` as diff prints it: 1-based, count left out when 1, and the line before an empty range. */
function range(start: number, count: number): string {
  const first = count === 0 ? start : start + 1;
  return count === 1 ? `${first}` : `${first},${count}`;
}
