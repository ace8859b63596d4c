import { diffArrays } from "diff";

/**
 * jsdiff's Myers search costs lines x edit distance, so it is given an edit
 * distance it may not exceed. A block over that budget is split at lines
 * that occur once on each side (the anchors of patience diff, which jsdiff
 * does not offer) and each piece diffed alone; a piece with no anchors is
 * replaced whole, still a valid diff.
 */
const WORK_BUDGET = 20_000_000;
const MAX_EDIT_DISTANCE = 2000;
const MAX_ANCHOR_DEPTH = 8;

export const EQUAL = 0;
export const DELETE = 1;
export const INSERT = 2;
type OpKind = typeof EQUAL | typeof DELETE | typeof INSERT;

export interface Op {
  kind: OpKind;
  line: string;
}

/** The edit script from `a` to `b`; within each changed block deletions come before insertions. */
export function diffLines(a: readonly string[], b: readonly string[]): Op[] {
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;
  const ops: Op[] = a.slice(0, prefix).map((line) => ({ kind: EQUAL, line }));
  const aMid = a.slice(prefix, a.length - suffix);
  const bMid = b.slice(prefix, b.length - suffix);
  diffBlock(aMid, bMid, ops, 0);
  for (const line of a.slice(a.length - suffix)) ops.push({ kind: EQUAL, line });
  return deletionsFirst(ops);
}

/** Appends the ops of one block to `out`, one push a line: a spread of many thousands of lines overflows the stack. */
function diffBlock(a: readonly string[], b: readonly string[], out: Op[], depth: number): void {
  if (a.length === 0 || b.length === 0) return replaceWhole(a, b, out);
  const maxEditLength = Math.min(MAX_EDIT_DISTANCE, Math.floor(WORK_BUDGET / (a.length + b.length)));
  // jsdiff copies its inputs before it works on them; the arrays are only typed as mutable.
  const changes = diffArrays(a as string[], b as string[], { maxEditLength });
  if (changes !== undefined) {
    for (const change of changes) {
      const kind = change.added ? INSERT : change.removed ? DELETE : EQUAL;
      for (const line of change.value) out.push({ kind, line });
    }
    return;
  }
  const anchors = depth < MAX_ANCHOR_DEPTH ? uniqueAnchors(a, b) : [];
  if (anchors.length === 0) return replaceWhole(a, b, out);
  let x = 0;
  let y = 0;
  for (const [anchorX, anchorY] of [...anchors, [a.length, b.length] as const]) {
    diffBlock(a.slice(x, anchorX), b.slice(y, anchorY), out, depth + 1);
    if (anchorX < a.length) out.push({ kind: EQUAL, line: a[anchorX]! });
    x = anchorX + 1;
    y = anchorY + 1;
  }
}

function replaceWhole(a: readonly string[], b: readonly string[], out: Op[]): void {
  for (const line of a) out.push({ kind: DELETE, line });
  for (const line of b) out.push({ kind: INSERT, line });
}

/** Pairs (x, y) of lines that occur exactly once in each side, the longest run increasing on both. */
function uniqueAnchors(a: readonly string[], b: readonly string[]): Array<readonly [number, number]> {
  const once = (lines: readonly string[]): Map<string, number> => {
    const position = new Map<string, number>();
    const seen = new Set<string>();
    lines.forEach((line, i) => {
      if (seen.has(line)) position.delete(line);
      else position.set(line, i);
      seen.add(line);
    });
    return position;
  };
  const inB = once(b);
  const pairs: Array<readonly [number, number]> = [];
  for (const [line, x] of once(a)) {
    const y = inB.get(line);
    if (y !== undefined) pairs.push([x, y]);
  }
  pairs.sort((p, q) => p[0] - q[0]);
  return longestIncreasing(pairs);
}

/** The longest subsequence with increasing y (patience sorting). */
function longestIncreasing(pairs: ReadonlyArray<readonly [number, number]>): Array<readonly [number, number]> {
  const tails: number[] = [];
  const previous = new Int32Array(pairs.length).fill(-1);
  for (let i = 0; i < pairs.length; i++) {
    const y = pairs[i]![1];
    let low = 0;
    let high = tails.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (pairs[tails[mid]!]![1] < y) low = mid + 1;
      else high = mid;
    }
    if (low > 0) previous[i] = tails[low - 1]!;
    tails[low] = i;
  }
  const result: Array<readonly [number, number]> = [];
  for (let i = tails.length > 0 ? tails[tails.length - 1]! : -1; i !== -1; i = previous[i]!) result.push(pairs[i]!);
  return result.reverse();
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
    for (let j = i; j < end; j++) if (ops[j]!.kind === DELETE) out.push(ops[j]!);
    for (let j = i; j < end; j++) if (ops[j]!.kind === INSERT) out.push(ops[j]!);
    i = end;
  }
  return out;
}
