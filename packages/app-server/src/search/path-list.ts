/**
 * The paths of one listing, kept as a few large strings with offsets
 * rather than one string per path: 200,000 small strings cost the garbage
 * collector more than fd takes to list them, and a search reads them in
 * order anyway. Each segment holds whole paths, as one batch of fd's
 * output brought them; they are not joined, which would copy them all.
 */
export interface PathSegment {
  /** Paths, each followed by a NUL. */
  readonly text: string;
  /** `text` case folded, position for position (foldCase). */
  readonly folded: string;
  /** Where path i of the segment starts in text. */
  readonly starts: Int32Array;
  /** Where path i of the segment ends (exclusive). */
  readonly ends: Int32Array;
  /** The list index of the segment's first path. */
  readonly first: number;
}

export class PathList {
  /** How many paths. */
  readonly count: number;

  constructor(readonly segments: readonly PathSegment[]) {
    const last = segments[segments.length - 1];
    this.count = last === undefined ? 0 : last.first + last.starts.length;
  }

  /** A list of NUL-terminated paths, whole (tests, warm-up). */
  static parse(output: string): PathList {
    const builder = new PathListBuilder(Infinity);
    builder.add(output);
    return builder.finish();
  }

  /** The segment that holds path `index`. */
  segmentOf(index: number): PathSegment {
    const segments = this.segments;
    let low = 0;
    let high = segments.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (segments[mid]!.first <= index) low = mid;
      else high = mid - 1;
    }
    return segments[low]!;
  }

  path(index: number): string {
    const segment = this.segmentOf(index);
    const local = index - segment.first;
    return segment.text.slice(segment.starts[local], segment.ends[local]);
  }

  /** Whether path a sorts before path b: the shorter first, then by UTF-16 code units. */
  before(a: number, b: number): boolean {
    const sa = this.segmentOf(a);
    const sb = this.segmentOf(b);
    const aStart = sa.starts[a - sa.first]!;
    const bStart = sb.starts[b - sb.first]!;
    const aLength = sa.ends[a - sa.first]! - aStart;
    const bLength = sb.ends[b - sb.first]! - bStart;
    if (aLength !== bLength) return aLength < bLength;
    for (let i = 0; i < aLength; i++) {
      const difference = sa.text.charCodeAt(aStart + i) - sb.text.charCodeAt(bStart + i);
      if (difference !== 0) return difference < 0;
    }
    return false;
  }
}

/** The first path of a segment from `index` on that ends after `position`: where a match found at `position` lies. */
export function pathAfter(segment: PathSegment, position: number, index: number): number {
  const ends = segment.ends;
  let low = index;
  let high = ends.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (ends[mid]! <= position) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * Builds a PathList from fd's NUL-terminated output, a batch at a time as
 * it arrives, so that decoding, folding and splitting happen while fd
 * still walks: a leading `./` is left out, and on Windows `\` becomes `/`.
 */
export class PathListBuilder {
  private readonly segments: PathSegment[] = [];
  /** Output after the last NUL: the start of a path still arriving. */
  private carry = "";
  private paths = 0;

  constructor(private readonly maxPaths: number) {}

  get count(): number {
    return this.paths;
  }

  /** Adds decoded output; false once it held more than maxPaths paths, of which the first maxPaths are kept. */
  add(output: string): boolean {
    const text = this.carry + (process.platform === "win32" ? output.replaceAll("\\", "/") : output);
    const last = text.lastIndexOf("\0");
    if (last === -1) {
      this.carry = text;
      return true;
    }
    this.carry = text.slice(last + 1);
    const starts: number[] = [];
    const ends: number[] = [];
    let start = 0;
    let kept = last + 1;
    let within = true;
    for (let end = text.indexOf("\0"); end !== -1 && end <= last; end = text.indexOf("\0", start)) {
      const from = text.charCodeAt(start) === 46 && text.charCodeAt(start + 1) === 47 ? start + 2 : start;
      if (end > from) {
        if (this.paths + starts.length === this.maxPaths) {
          kept = start;
          within = false;
          break;
        }
        starts.push(from);
        ends.push(end);
      }
      start = end + 1;
    }
    if (starts.length > 0) {
      const whole = kept === text.length ? text : text.slice(0, kept);
      // Typed arrays: four bytes an offset, and outside the heap the collector copies.
      this.segments.push({ text: whole, folded: foldCase(whole), starts: new Int32Array(starts), ends: new Int32Array(ends), first: this.paths });
      this.paths += starts.length;
    }
    return within;
  }

  finish(): PathList {
    return new PathList(this.segments);
  }
}

/**
 * Lower case with every UTF-16 unit kept in its place, so that a position
 * in the folded text is the same position in the original. A character
 * whose lower case is longer (İ) keeps its own case rather than shift the
 * rest.
 */
export function foldCase(text: string): string {
  const lower = text.toLowerCase();
  if (lower.length === text.length) return lower;
  const units: string[] = [];
  for (const unit of text.split("")) {
    const folded = unit.toLowerCase();
    units.push(folded.length === 1 ? folded : unit);
  }
  return units.join("");
}
