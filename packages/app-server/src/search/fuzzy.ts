/**
 * The fuzzy matcher of file/search: the query's characters must appear in
 * the path in order, ignoring case; an alignment scores points for each
 * matched character, bonuses where a character starts a path segment, a
 * word or a camelCase hump, and more bonuses for runs of consecutive
 * characters, which keep the bonus of the character that began them; gaps
 * cost a little. The best alignment of each path is found by dynamic
 * programming over (path position, query character), so a path that holds
 * the query as a run at the start of a segment always beats one where the
 * same characters lie scattered. Why our own and not a package:
 * docs/file-search.md.
 */
import { foldCase, pathAfter, type PathList, type PathSegment } from "./path-list.js";
import { TopPaths } from "./ranking.js";

export interface PathMatch {
  path: string;
  score: number;
  /** 0-based UTF-16 positions in path, ascending. */
  indices: number[];
}

const MATCH = 16;
const GAP_START = -3;
const GAP_EXTENSION = -1;
/** A character right after `/`, or the path's first: a segment starts there. */
const BONUS_SEGMENT = 10;
/** A word character after other punctuation (`-`, `_`, `.`, a space). */
const BONUS_BOUNDARY = 8;
/** Punctuation itself, when the query asks for it. */
const BONUS_NON_WORD = 8;
/** An upper-case letter after a lower-case one, a digit after a letter. */
const BONUS_CAMEL = 7;
/** The least a character continuing a run earns. */
const BONUS_CONSECUTIVE = -(GAP_START + GAP_EXTENSION);
/** Where a match starts counts double. */
const FIRST_CHARACTER_MULTIPLIER = 2;
const NONE = -1_000_000_000;

const LOWER = 0;
const UPPER = 1;
const DIGIT = 2;
const SLASH = 3;
const PUNCTUATION = 4;

function kindOf(code: number): number {
  if (code >= 97 && code <= 122) return LOWER;
  if (code >= 65 && code <= 90) return UPPER;
  if (code >= 48 && code <= 57) return DIGIT;
  if (code === 47) return SLASH;
  // Anything beyond ASCII counts as a letter: names in any script.
  return code < 128 ? PUNCTUATION : LOWER;
}

/** The bonus for matching the character at `at`, in the path that starts at `start`. */
function bonusAt(text: string, at: number, start: number): number {
  const kind = kindOf(text.charCodeAt(at));
  if (kind === SLASH || kind === PUNCTUATION) return BONUS_NON_WORD;
  if (at === start) return BONUS_SEGMENT;
  const before = kindOf(text.charCodeAt(at - 1));
  if (before === SLASH) return BONUS_SEGMENT;
  if (before === PUNCTUATION) return BONUS_BOUNDARY;
  if (kind === UPPER && before === LOWER) return BONUS_CAMEL;
  if (kind === DIGIT && before !== DIGIT) return BONUS_CAMEL;
  return 0;
}

/**
 * One term's alignment, with work arrays reused for every path. Only the
 * positions holding one of the term's characters are visited: the others
 * can only lie in a gap, and a gap's cost depends on its length alone, so
 * the best gap start is kept as a score plus its position (see `gap`).
 * The index pass, run for the paths answered only, also keeps every
 * cell's predecessor.
 */
class Aligner {
  /** Scores of the row last visited (position `rowAt`), and of the one being filled. */
  private row: Int32Array;
  private next: Int32Array;
  /** The bonus each cell's run of consecutive characters carries. */
  private rowRun: Int32Array;
  private nextRun: Int32Array;
  /**
   * Per term character j, the best `score + position` over the rows a gap
   * may start after: a jump from there to a match at i costs
   * GAP_START + (i - position - 2) * GAP_EXTENSION, which with
   * GAP_EXTENSION = -1 depends on the sum alone.
   */
  private gap: Int32Array;
  private gapFrom: Int32Array;
  private previous = new Int32Array(0);
  /** Which UTF-16 units the term holds. */
  private readonly holds = new Uint8Array(65536);

  /** The first and last positions the last window() found an alignment can use. */
  first = 0;
  last = 0;

  constructor(private readonly term: string) {
    const m = term.length;
    this.row = new Int32Array(m);
    this.next = new Int32Array(m);
    this.rowRun = new Int32Array(m);
    this.nextRun = new Int32Array(m);
    this.gap = new Int32Array(m);
    this.gapFrom = new Int32Array(m);
    for (let j = 0; j < m; j++) this.holds[term.charCodeAt(j)] = 1;
  }

  /** Whether the term is a subsequence of [start, end); if so, sets first and last. */
  window(folded: string, start: number, end: number): boolean {
    const term = this.term;
    let at = folded.indexOf(term[0]!, start);
    if (at < 0 || at >= end) return false;
    this.first = at;
    for (let j = 1; j < term.length; j++) {
      at = folded.indexOf(term[j]!, at + 1);
      if (at < 0 || at >= end) return false;
    }
    this.last = folded.lastIndexOf(term[term.length - 1]!, end - 1);
    return true;
  }

  /** Where the term's first character next occurs at or after `from`; -1 when nowhere. */
  nextStart(folded: string, from: number): number {
    return folded.indexOf(this.term[0]!, from);
  }

  /** Lets gaps start after the row at `rowAt`. */
  private openGaps(rowAt: number): void {
    const { row, gap, gapFrom } = this;
    for (let j = 0; j < row.length; j++) {
      if (row[j] === NONE) continue;
      const value = row[j]! + rowAt;
      if (value >= gap[j]!) {
        gap[j] = value;
        gapFrom[j] = rowAt;
      }
    }
  }

  /**
   * The best alignment's score within the last window, for the path that
   * starts at `start`; with `indices`, also its matched positions, relative
   * to `start`.
   */
  score(text: string, folded: string, start: number, indices?: number[]): number {
    const { first, last, term, holds } = this;
    const m = term.length;
    const track = indices !== undefined;
    if (track && this.previous.length < (last - first + 1) * m) this.previous = new Int32Array((last - first + 1) * m);
    this.row.fill(NONE);
    this.gap.fill(NONE);
    let rowAt = -2;
    let opened = true;
    let best = NONE;
    let bestAt = -1;
    for (let i = first; i <= last; i++) {
      const code = folded.charCodeAt(i);
      if (holds[code] === 0) continue;
      // The row before last may now start a gap that ends here.
      if (!opened && rowAt <= i - 2) {
        this.openGaps(rowAt);
        opened = true;
      }
      const { row, next, rowRun, nextRun, gap, gapFrom } = this;
      const adjacent = rowAt === i - 1;
      const highest = Math.min(m - 1, i - first);
      const lowest = Math.max(0, m - 1 - (last - i));
      next.fill(NONE);
      for (let j = lowest; j <= highest; j++) {
        if (term.charCodeAt(j) !== code) continue;
        const bonus = bonusAt(text, i, start);
        let value: number;
        let run: number;
        let from = -1;
        if (j === 0) {
          value = MATCH + bonus * FIRST_CHARACTER_MULTIPLIER;
          run = bonus;
        } else {
          const continued = adjacent && row[j - 1] !== NONE ? row[j - 1]! + MATCH + Math.max(bonus, rowRun[j - 1]!, BONUS_CONSECUTIVE) : NONE;
          const jumped = gap[j - 1] !== NONE ? gap[j - 1]! - i + 2 + GAP_START + MATCH + bonus : NONE;
          if (continued === NONE && jumped === NONE) continue;
          if (continued >= jumped) {
            value = continued;
            run = Math.max(rowRun[j - 1]!, bonus);
            from = i - 1;
          } else {
            value = jumped;
            run = bonus;
            from = gapFrom[j - 1]!;
          }
        }
        next[j] = value;
        nextRun[j] = run;
        if (track) this.previous[(i - first) * m + j] = from;
        // The rightmost of equal alignments: the one nearest the file name.
        if (j === m - 1 && value >= best) {
          best = value;
          bestAt = i;
        }
      }
      if (!opened) this.openGaps(rowAt);
      this.row = next;
      this.next = row;
      this.rowRun = nextRun;
      this.nextRun = rowRun;
      rowAt = i;
      opened = false;
    }
    if (track && bestAt >= 0) {
      for (let i = bestAt, j = m - 1; j >= 0; j--) {
        indices.push(i - start);
        i = this.previous[(i - first) * m + j]!;
      }
    }
    return best;
  }
}

/** The query's terms, case folded: whitespace separates them, and each must match. */
function termsOf(query: string): string[] {
  return query
    .split(/\s+/)
    .filter((term) => term !== "")
    .map((term) => foldCase(term));
}

/** The `limit` best matches of `query` among `paths`, best first. */
export function matchPaths(paths: PathList, query: string, limit: number): PathMatch[] {
  const terms = termsOf(query);
  if (terms.length === 0) return [];
  const aligners = terms.map((term) => new Aligner(term));
  const top = new TopPaths(paths, limit);
  for (const segment of paths.segments) offerSegment(segment, aligners, top);
  return top.best().map(({ index, score }) => {
    const { text, folded, starts, ends, first } = paths.segmentOf(index);
    const start = starts[index - first]!;
    const indices: number[] = [];
    for (const aligner of aligners) {
      aligner.window(folded, start, ends[index - first]!);
      aligner.score(text, folded, start, indices);
    }
    return { path: paths.path(index), score, indices: [...new Set(indices)].sort((a, b) => a - b) };
  });
}

function offerSegment(segment: PathSegment, aligners: Aligner[], top: TopPaths): void {
  const { text, folded, starts, ends, first } = segment;
  const lead = aligners[0]!;
  const count = starts.length;
  let p = 0;
  while (p < count) {
    // Paths before the next occurrence of the query's first character cannot match: skipped unread.
    const found = lead.nextStart(folded, starts[p]!);
    if (found < 0) return;
    if (found >= ends[p]!) p = pathAfter(segment, found, p + 1);
    if (p >= count) return;
    const start = starts[p]!;
    const end = ends[p]!;
    let total = 0;
    for (let a = 0; a < aligners.length && total !== NONE; a++) {
      const aligner = aligners[a]!;
      total = aligner.window(folded, start, end) ? total + aligner.score(text, folded, start) : NONE;
    }
    if (total !== NONE) top.offer(first + p, total);
    p++;
  }
}
