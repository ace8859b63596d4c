import type { PathList } from "./path-list.js";

/** Whether path a with score sa ranks below b with sb: a lower score, else the path that sorts after (PathList.before). */
function ranksBelow(paths: PathList, a: number, sa: number, b: number, sb: number): boolean {
  if (sa !== sb) return sa < sb;
  return paths.before(b, a);
}

/**
 * The best `limit` of many scored paths: a heap whose root is the worst
 * kept, so each offer costs O(log limit) and nothing else is stored.
 */
export class TopPaths {
  private readonly index: number[] = [];
  private readonly score: number[] = [];

  constructor(
    private readonly paths: PathList,
    private readonly limit: number,
  ) {}

  offer(index: number, score: number): void {
    if (this.index.length < this.limit) {
      this.index.push(index);
      this.score.push(score);
      this.up(this.index.length - 1);
    } else if (ranksBelow(this.paths, this.index[0]!, this.score[0]!, index, score)) {
      this.index[0] = index;
      this.score[0] = score;
      this.down(0);
    }
  }

  /** What was kept, best first. */
  best(): { index: number; score: number }[] {
    return this.index
      .map((index, at) => ({ index, score: this.score[at]! }))
      .sort((a, b) => (ranksBelow(this.paths, a.index, a.score, b.index, b.score) ? 1 : -1));
  }

  private below(a: number, b: number): boolean {
    return ranksBelow(this.paths, this.index[a]!, this.score[a]!, this.index[b]!, this.score[b]!);
  }

  private swap(a: number, b: number): void {
    [this.index[a], this.index[b]] = [this.index[b]!, this.index[a]!];
    [this.score[a], this.score[b]] = [this.score[b]!, this.score[a]!];
  }

  private up(at: number): void {
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!this.below(at, parent)) return;
      this.swap(at, parent);
      at = parent;
    }
  }

  private down(at: number): void {
    for (;;) {
      const left = 2 * at + 1;
      const right = left + 1;
      let worst = at;
      if (left < this.index.length && this.below(left, worst)) worst = left;
      if (right < this.index.length && this.below(right, worst)) worst = right;
      if (worst === at) return;
      this.swap(at, worst);
      at = worst;
    }
  }
}
