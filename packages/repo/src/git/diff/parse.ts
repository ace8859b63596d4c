import { hunkId, type ReadShape } from "./hunk-id.js";
import { quotePath } from "./quote.js";
import type { DiffBudget, DiffHunk, DiffStatus, FilePatch } from "./types.js";

/** One record of `git diff --raw -z`: modes, blob ids, status and the path (two for a rename). */
interface RawEntry {
  oldMode: string;
  newMode: string;
  oldBlob: string;
  newBlob: string;
  status: string;
  oldPath: Buffer;
  newPath: Buffer;
}

const NUL = 0;
const LF = 0x0a;
const COLON = 0x3a;
const SECTION = Buffer.from("\ndiff --git ");
const HUNK = Buffer.from("\n@@ ");
const ZERO_BLOB = /^0+$/;
const GITLINK = "160000";
const A_PREFIX = Buffer.from("a/");
const B_PREFIX = Buffer.from("b/");

/**
 * One raw record at `at`: the record and where the next one starts, or
 * undefined when the bytes end inside it (more are coming).
 */
function rawRecord(out: Buffer, at: number): { entry: RawEntry; next: number } | undefined {
  const field = (): Buffer | undefined => {
    const end = out.indexOf(NUL, at);
    if (end === -1) return undefined;
    const value = out.subarray(at, end);
    at = end + 1;
    return value;
  };
  const head = field();
  if (head === undefined) return undefined;
  const [oldMode = "", newMode = "", oldBlob = "", newBlob = "", status = ""] = head.toString("latin1").slice(1).split(" ");
  const first = field();
  if (first === undefined) return undefined;
  const second = status.startsWith("R") || status.startsWith("C") ? field() : first;
  if (second === undefined) return undefined;
  return { entry: { oldMode, newMode, oldBlob, newBlob, status, oldPath: first, newPath: second }, next: at };
}

/** The `diff --git` line git writes for a record, with its newline. */
function headerLine(entry: RawEntry): Buffer {
  const line = `diff --git ${quotePath(Buffer.concat([A_PREFIX, entry.oldPath]))} ${quotePath(Buffer.concat([B_PREFIX, entry.newPath]))}\n`;
  return Buffer.from(line, "latin1");
}

/** Whether the section starting at `start` opens with `line`. */
function opensWith(out: Buffer, start: number, end: number, line: Buffer): boolean {
  return end - start >= line.length && out.compare(line, 0, line.length, start, start + line.length) === 0;
}

function statusOf(code: string): DiffStatus {
  switch (code[0]) {
    case "A":
      return "added";
    case "D":
      return "deleted";
    case "R":
      return "renamed";
    default:
      return "modified";
  }
}

/** Line counts of a hunk's bytes: `+` and `-` lines after its `@@` line. */
function countChanges(hunk: Buffer): { additions: number; deletions: number } {
  let additions = 0;
  let deletions = 0;
  let at = hunk.indexOf(LF);
  while (at !== -1 && at + 1 < hunk.length) {
    const first = hunk[at + 1];
    if (first === 0x2b) additions++;
    else if (first === 0x2d) deletions++;
    at = hunk.indexOf(LF, at + 1);
  }
  return { additions, deletions };
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

function hunkOf(bytes: Buffer, id: string): DiffHunk {
  const lines = bytes.toString("utf8").split("\n");
  const header = HUNK_HEADER.exec(lines[0] ?? "");
  if (!header) throw new Error(`git wrote a hunk header this reader does not know: ${lines[0]}`);
  if (lines[lines.length - 1] === "") lines.pop();
  return {
    id,
    oldStart: Number(header[1]),
    oldLines: header[2] === undefined ? 1 : Number(header[2]),
    newStart: Number(header[3]),
    newLines: header[4] === undefined ? 1 : Number(header[4]),
    lines: lines.slice(1),
  };
}

/** Blob ids from a section's `index` line, which names the working tree's blob where the raw record has zeros. */
function indexLineBlobs(header: string): { oldBlob: string; newBlob: string } | undefined {
  const match = /^index ([0-9a-f]+)\.\.([0-9a-f]+)/m.exec(header);
  return match ? { oldBlob: match[1]!, newBlob: match[2]! } : undefined;
}

export interface ParseOptions extends ReadShape {
  budget: DiffBudget;
  /** Each file's JSON text too (`fileJson`), made while git still writes the files after it. */
  json?: boolean;
}

export interface ParsedDiff {
  patches: FilePatch[];
  filesOmitted: number;
}

/**
 * Reads `git diff --raw -p -z` output as it arrives, so that a large diff
 * is parsed while git is still writing it: each raw record with its patch
 * section (matched by the `diff --git` line git writes for it, since a
 * whitespace-blind diff leaves sections out), its hunks and their ids. A
 * type change's two sections (deletion, then addition) are one file. The
 * budget decides which files keep their hunks. A file is read once the
 * section after its own has begun (or the output has ended), and only the
 * bytes of files not yet read are held.
 */
export class DiffReader {
  private readonly entries: RawEntry[] = [];
  private readonly patches: FilePatch[] = [];
  /** The output from the first byte not yet read (at `base`) on. */
  private pending: Buffer = Buffer.alloc(0);
  private base = 0;
  private inRecords = true;
  /** The file whose sections come next, and its `diff --git` line. */
  private next = 0;
  private expected: Buffer | undefined;
  /** Where in `pending` each section found so far starts; those before `first` are read. */
  private starts: number[] = [];
  private first = 0;
  /** Where the search for the next section's start resumes. */
  private searchFrom = 0;
  private spent = 0;
  private failure: Error | undefined;

  constructor(private readonly options: ParseOptions) {}

  /** Feeds the next bytes of git's output. Never throws: a failure is kept for `end`. */
  push(chunk: Buffer): void {
    if (this.failure || chunk.length === 0) return;
    if (this.base === this.pending.length) this.pending = chunk;
    else this.pending = Buffer.concat([this.pending.subarray(this.base), chunk]);
    const shift = this.base;
    this.starts = this.starts.slice(this.first).map((start) => start - shift);
    this.first = 0;
    this.searchFrom = Math.max(0, this.searchFrom - shift);
    this.base = 0;
    this.advance(false);
  }

  /** The output is over: reads what is left and answers every file. */
  end(): ParsedDiff {
    this.advance(true);
    if (this.failure) throw this.failure;
    const { maxFiles } = this.options.budget;
    return { patches: this.patches, filesOmitted: Math.max(0, this.entries.length - maxFiles) };
  }

  private advance(ended: boolean): void {
    if (this.failure) return;
    try {
      if (this.inRecords) this.readRecords(ended);
      if (!this.inRecords) this.readSections(ended);
    } catch (error) {
      this.failure = error as Error;
    }
  }

  private readRecords(ended: boolean): void {
    const out = this.pending;
    while (this.base < out.length && out[this.base] === COLON) {
      const record = rawRecord(out, this.base);
      if (!record) {
        if (ended) throw new Error("git diff --raw -z ended inside a record");
        return;
      }
      this.entries.push(record.entry);
      this.base = record.next;
    }
    // The records end at the first byte that starts none: unknown until it arrives.
    if (this.base === out.length && !ended) return;
    // With a patch to follow, one NUL separates it from the records.
    if (this.entries.length > 0 && out[this.base] === NUL) this.base++;
    this.searchFrom = this.base;
    this.inRecords = false;
  }

  private readSections(ended: boolean): void {
    const out = this.pending;
    if (this.starts.length === 0 && out.length > this.base) this.starts.push(this.base);
    for (let at = out.indexOf(SECTION, this.searchFrom); at !== -1; at = out.indexOf(SECTION, at + 1)) this.starts.push(at + 1);
    // An opening split across two chunks is found once both halves are here.
    this.searchFrom = Math.max(this.base, out.length - SECTION.length + 1);
    while (this.next < this.entries.length) {
      const entry = this.entries[this.next]!;
      this.expected ??= headerLine(entry);
      const count = this.sectionsOf(this.expected, ended);
      if (count === undefined) return;
      this.take(entry, count);
    }
  }

  /**
   * How many of the unread sections are the next file's (they open with
   * its line), or undefined while that cannot be known: a section whose
   * opening or end has not arrived.
   */
  private sectionsOf(expected: Buffer, ended: boolean): number | undefined {
    const out = this.pending;
    for (let count = 0; ; count++) {
      const start = this.starts[this.first + count];
      if (start === undefined) return ended ? count : undefined;
      // The section ends where the next one starts, or with the output.
      const end = this.starts[this.first + count + 1] ?? out.length;
      if (end - start < expected.length && !ended && end === out.length) return undefined;
      if (!opensWith(out, start, end, expected)) return count;
      if (end === out.length && !ended) return undefined;
    }
  }

  /** Reads the next file from its first `count` unread sections. */
  private take(entry: RawEntry, count: number): void {
    const end = this.starts[this.first + count] ?? this.pending.length;
    const { budget } = this.options;
    if (this.next < budget.maxFiles) {
      const admit = (size: number): boolean => {
        if (size > budget.maxFileBytes || this.spent + size > budget.maxTotalBytes) return false;
        this.spent += size;
        return true;
      };
      const patch = filePatch(this.pending.subarray(this.base, end), entry, this.options, admit);
      if (this.options.json) patch.fileJson = JSON.stringify(patch.file);
      this.patches.push(patch);
    }
    this.next++;
    this.expected = undefined;
    this.base = end;
    this.first += count;
  }
}

/** Reads a whole `git diff --raw -p -z` output at once (see DiffReader). */
export function parseDiff(out: Buffer, options: ParseOptions): ParsedDiff {
  const reader = new DiffReader(options);
  reader.push(out);
  return reader.end();
}

/** One file's part of the patch; `admit` says whether its hunks (of this many bytes) fit the budget. */
function filePatch(section: Buffer, entry: RawEntry, shape: ReadShape, admit: (size: number) => boolean): FilePatch {
  const hunkStarts: number[] = [];
  for (let at = section.indexOf(HUNK); at !== -1; at = section.indexOf(HUNK, at + 1)) hunkStarts.push(at + 1);
  // A type change is two sections: hunks start again in the second one after its own header.
  const headerEnd = hunkStarts[0] ?? section.length;
  const header = section.subarray(0, headerEnd);
  // The binary marker follows the header lines; binary data after it is never decoded.
  const headerText = header.toString("latin1", 0, Math.min(header.length, 8192));
  const binary = hunkStarts.length === 0 && /^(Binary files |GIT binary patch)/m.test(headerText);
  const blobs = indexLineBlobs(headerText);
  const oldBlob = blobs?.oldBlob ?? entry.oldBlob;
  const newBlob = blobs?.newBlob ?? (ZERO_BLOB.test(entry.newBlob) ? entry.oldBlob : entry.newBlob);
  const status = statusOf(entry.status);
  const path = entry.newPath.toString("utf8");
  const oldPath = entry.oldPath.toString("utf8");
  const hunkBytes: Buffer[] = [];
  const bounds = [...hunkStarts, section.length];
  for (let i = 0; i < hunkStarts.length; i++) {
    let stop = bounds[i + 1]!;
    // The second section of a type change starts inside the last hunk of the first: cut there.
    const next = section.indexOf(SECTION, hunkStarts[i]!);
    if (next !== -1 && next + 1 < stop) stop = next + 1;
    hunkBytes.push(section.subarray(hunkStarts[i]!, stop));
  }
  const identity = { oldPath, newPath: path, oldMode: entry.oldMode, newMode: entry.newMode, oldBlob, newBlob };
  let additions = 0;
  let deletions = 0;
  for (const hunk of hunkBytes) {
    const counted = countChanges(hunk);
    additions += counted.additions;
    deletions += counted.deletions;
  }
  const gitlink = entry.oldMode === GITLINK || entry.newMode === GITLINK;
  const typeChange = entry.status.startsWith("T");
  const fits = admit(hunkBytes.reduce((sum, hunk) => sum + hunk.length, 0));
  return {
    file: {
      path,
      ...(status === "renamed" ? { oldPath } : {}),
      status,
      binary,
      additions,
      deletions,
      ...(fits ? {} : { tooLarge: true }),
      hunks: fits ? hunkBytes.map((bytes) => hunkOf(bytes, hunkId(shape, identity, bytes))) : [],
    },
    oldMode: entry.oldMode,
    newMode: entry.newMode,
    section,
    header,
    hunkBytes,
    wholeOnly: status !== "modified" || binary || typeChange || gitlink || entry.oldMode !== entry.newMode,
    gitlink,
  };
}
