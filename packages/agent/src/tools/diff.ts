/** One file a tool changed, as reported in a tool result's `details.fileChanges`. */
export interface FileChange {
  /** Relative to the thread's cwd when inside it, else absolute. */
  path: string;
  kind: "add" | "modify" | "delete";
  /** Unified diff with three lines of context; empty when the contents did not change. */
  diff: string;
}

const CONTEXT_LINES = 3;
/** Myers costs (lines x edit distance); past this budget a block is replaced whole, still a valid diff. */
const WORK_BUDGET = 50_000_000;
const MAX_EDIT_DISTANCE = 4000;

const EQUAL = 0;
const DELETE = 1;
const INSERT = 2;
type OpKind = typeof EQUAL | typeof DELETE | typeof INSERT;

interface Op {
  kind: OpKind;
  line: string;
}

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

/** The edit script from `a` to `b`; within each changed block deletions come before insertions. */
function diffLines(a: readonly string[], b: readonly string[]): Op[] {
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;
  const ops: Op[] = a.slice(0, prefix).map((line) => ({ kind: EQUAL, line }));
  const aMid = a.slice(prefix, a.length - suffix);
  const bMid = b.slice(prefix, b.length - suffix);
  ops.push(...middleOps(aMid, bMid));
  for (const line of a.slice(a.length - suffix)) ops.push({ kind: EQUAL, line });
  return deletionsFirst(ops);
}

function middleOps(a: readonly string[], b: readonly string[]): Op[] {
  const ids = new Map<string, number>();
  const intern = (line: string): number => {
    let id = ids.get(line);
    if (id === undefined) ids.set(line, (id = ids.size));
    return id;
  };
  const aIds = Int32Array.from(a, intern);
  const bIds = Int32Array.from(b, intern);
  const maxD = Math.min(MAX_EDIT_DISTANCE, Math.floor(WORK_BUDGET / (a.length + b.length + 1)));
  const trace = myersTrace(aIds, bIds, maxD);
  if (trace === undefined) {
    return [...a.map((line): Op => ({ kind: DELETE, line })), ...b.map((line): Op => ({ kind: INSERT, line }))];
  }
  return backtrack(trace, a, b);
}

/**
 * Forward Myers search. `trace[d]` holds the furthest x for each diagonal k
 * in [-d, d] before round d (index k + d). Undefined when the edit distance
 * exceeds `maxD`.
 */
function myersTrace(a: Int32Array, b: Int32Array, maxD: number): Int32Array[] | undefined {
  const n = a.length;
  const m = b.length;
  const offset = n + m + 1;
  const v = new Int32Array(2 * offset + 1);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= Math.min(n + m, maxD); d++) {
    trace.push(v.slice(offset - d, offset + d + 1));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return trace;
    }
  }
  return undefined;
}

function backtrack(trace: Int32Array[], a: readonly string[], b: readonly string[]): Op[] {
  const reversed: Op[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = trace.length - 1; d >= 0; d--) {
    let prevX = 0;
    let prevY = 0;
    if (d > 0) {
      const v = trace[d]!;
      const k = x - y;
      const down = k === -d || (k !== d && v[k - 1 + d]! < v[k + 1 + d]!);
      const prevK = down ? k + 1 : k - 1;
      prevX = v[prevK + d]!;
      prevY = prevX - prevK;
    }
    while (x > prevX && y > prevY) {
      x--;
      y--;
      reversed.push({ kind: EQUAL, line: a[x]! });
    }
    if (d > 0) {
      if (x === prevX) reversed.push({ kind: INSERT, line: b[--y]! });
      else reversed.push({ kind: DELETE, line: a[--x]! });
    }
  }
  return reversed.reverse();
}

function deletionsFirst(ops: Op[]): Op[] {
  const out: Op[] = [];
  let i = 0;
  while (i < ops.length) {
    if (ops[i]!.kind === EQUAL) {
      out.push(ops[i++]!);
      continue;
    }
    let end = i;
    while (end < ops.length && ops[end]!.kind !== EQUAL) end++;
    const block = ops.slice(i, end);
    out.push(...block.filter((op) => op.kind === DELETE), ...block.filter((op) => op.kind === INSERT));
    i = end;
  }
  return out;
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
