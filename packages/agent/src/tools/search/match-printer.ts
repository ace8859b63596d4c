import { cutLine, MAX_OUTPUT_BYTES } from "../format.js";
import type { LineHit } from "./scan-file.js";

export const MAX_MATCH_LINE_CHARS = 500;

export interface GrepDetails {
  matches: number;
  truncated: boolean;
}

/**
 * Turns the lines either search finds into bounded text, counting matches:
 * `path:line: text` for matches, `path-line- text` for context, `--` between
 * runs of lines that do not follow each other.
 */
export class MatchPrinter {
  matches = 0;
  private lines: string[] = [];
  private bytes = 0;
  private moreMatches = false;
  private byteLimited = false;
  private cutLines = 0;
  private last: { path: string; line: number } | undefined;

  constructor(
    private readonly limit: number,
    private readonly context: number,
  ) {}

  /** Adds a line of `path` (as shown); false once no more output is wanted. */
  add(path: string, hit: LineHit): boolean {
    if (hit.kind === "match" && this.matches >= this.limit) {
      this.moreMatches = true;
      return false;
    }
    const adjoins = this.last !== undefined && this.last.path === path && this.last.line + 1 === hit.line;
    // Past the limit, only the trailing context of the last match is wanted, not the leading context of the next.
    if (this.matches >= this.limit && !adjoins) return true;
    if (this.context > 0 && this.last !== undefined && !adjoins) this.push("--");
    const { text, cut } = cutLine(hit.text, MAX_MATCH_LINE_CHARS);
    if (cut) this.cutLines++;
    const separator = hit.kind === "match" ? ":" : "-";
    if (!this.push(`${path}${separator}${hit.line}${separator} ${text}`)) return false;
    if (hit.kind === "match") this.matches++;
    this.last = { path, line: hit.line };
    return true;
  }

  /** The output, with `problems` (unreadable paths, say) noted at the end. */
  finish(problems: string): string {
    if (this.matches === 0) return "No matches found.";
    let text = this.lines.join("\n");
    if (this.moreMatches) text += `\n\n[Stopped at ${this.limit} matches; narrow the pattern or path, or raise limit.]`;
    if (this.byteLimited) text += `\n\n[Output stopped at ${MAX_OUTPUT_BYTES / 1024} KiB; narrow the pattern or path.]`;
    if (this.cutLines > 0) text += `\n\n[${this.cutLines} line(s) cut at ${MAX_MATCH_LINE_CHARS} characters.]`;
    if (problems !== "") text += `\n\n[${problems}]`;
    return text;
  }

  details(): GrepDetails {
    return { matches: this.matches, truncated: this.moreMatches || this.byteLimited };
  }

  private push(line: string): boolean {
    const size = Buffer.byteLength(line) + 1;
    if (this.bytes + size > MAX_OUTPUT_BYTES) {
      this.byteLimited = true;
      return false;
    }
    this.lines.push(line);
    this.bytes += size;
    return true;
  }
}
