/**
 * Myers costs (lines x edit distance). A block over budget is split at lines
 * that occur once on each side (the anchors of patience diff) and each piece
 * diffed alone; a piece with no anchors is replaced whole, still a valid diff.
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
  // Loops rather than push(...array): a spread of many thousands of lines overflows the stack.
  for (const op of middleOps(aMid, bMid)) ops.push(op);
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
  const out: Op[] = [];
  diffBlock(a, b, Int32Array.from(a, intern), Int32Array.from(b, intern), out, 0);
  return out;
}

function diffBlock(a: readonly string[], b: readonly string[], aIds: Int32Array, bIds: Int32Array, out: Op[], depth: number): void {
  if (a.length === 0 || b.length === 0) return replaceWhole(a, b, out);
  const maxD = Math.min(MAX_EDIT_DISTANCE, Math.floor(WORK_BUDGET / (a.length + b.length)));
  const trace = myersTrace(aIds, bIds, maxD);
  if (trace !== undefined) {
    for (const op of backtrack(trace, a, b)) out.push(op);
    return;
  }
  const anchors = depth < MAX_ANCHOR_DEPTH ? uniqueAnchors(aIds, bIds) : [];
  if (anchors.length === 0) return replaceWhole(a, b, out);
  let x = 0;
  let y = 0;
  for (const [anchorX, anchorY] of [...anchors, [a.length, b.length] as const]) {
    diffBlock(a.slice(x, anchorX), b.slice(y, anchorY), aIds.subarray(x, anchorX), bIds.subarray(y, anchorY), out, depth + 1);
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
function uniqueAnchors(aIds: Int32Array, bIds: Int32Array): Array<readonly [number, number]> {
  const once = (ids: Int32Array): Map<number, number> => {
    const position = new Map<number, number>();
    const seen = new Set<number>();
    ids.forEach((id, i) => {
      if (seen.has(id)) position.delete(id);
      else position.set(id, i);
      seen.add(id);
    });
    return position;
  };
  const inB = once(bIds);
  const pairs: Array<readonly [number, number]> = [];
  for (const [id, x] of once(aIds)) {
    const y = inB.get(id);
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
    for (let j = i; j < end; j++) if (ops[j]!.kind === DELETE) out.push(ops[j]!);
    for (let j = i; j < end; j++) if (ops[j]!.kind === INSERT) out.push(ops[j]!);
    i = end;
  }
  return out;
}

