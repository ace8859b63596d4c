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

/** The raw records at the head of the output, and where the patch after them starts. */
function parseRaw(out: Buffer): { entries: RawEntry[]; patchStart: number } {
  const entries: RawEntry[] = [];
  let at = 0;
  const field = (): Buffer => {
    const end = out.indexOf(NUL, at);
    if (end === -1) throw new Error("git diff --raw -z ended inside a record");
    const value = out.subarray(at, end);
    at = end + 1;
    return value;
  };
  while (at < out.length && out[at] === COLON) {
    const [oldMode = "", newMode = "", oldBlob = "", newBlob = "", status = ""] = field().toString("latin1").slice(1).split(" ");
    const first = field();
    const second = status.startsWith("R") || status.startsWith("C") ? field() : first;
    entries.push({ oldMode, newMode, oldBlob, newBlob, status, oldPath: first, newPath: second });
  }
  // With a patch to follow, one NUL separates it from the records.
  if (entries.length > 0 && out[at] === NUL) at++;
  return { entries, patchStart: at };
}

/** The patch's sections: where each `diff --git` line starts, and the end. */
function sectionStarts(out: Buffer, from: number): number[] {
  const starts: number[] = [];
  if (out.length > from) starts.push(from);
  for (let at = out.indexOf(SECTION, from); at !== -1; at = out.indexOf(SECTION, at + 1)) starts.push(at + 1);
  starts.push(out.length);
  return starts;
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
}

export interface ParsedDiff {
  patches: FilePatch[];
  filesOmitted: number;
}

/**
 * Reads `git diff --raw -p -z` output: each raw record with its patch
 * section (matched by the `diff --git` line git writes for it, since a
 * whitespace-blind diff leaves sections out), its hunks and their ids.
 * A type change's two sections (deletion, then addition) are one file. The
 * budget decides which files keep their hunks.
 */
export function parseDiff(out: Buffer, options: ParseOptions): ParsedDiff {
  const { entries, patchStart } = parseRaw(out);
  const starts = sectionStarts(out, patchStart);
  const { budget } = options;
  const patches: FilePatch[] = [];
  let section = 0;
  let spent = 0;
  for (const [index, entry] of entries.entries()) {
    const expected = headerLine(entry);
    const begin = starts[section]!;
    let end = begin;
    while (section < starts.length - 1 && opensWith(out, starts[section]!, starts[section + 1]!, expected)) end = starts[++section]!;
    if (index >= budget.maxFiles) continue;
    const admit = (size: number): boolean => {
      if (size > budget.maxFileBytes || spent + size > budget.maxTotalBytes) return false;
      spent += size;
      return true;
    };
    patches.push(filePatch(out.subarray(begin, end), entry, options, admit));
  }
  return { patches, filesOmitted: Math.max(0, entries.length - budget.maxFiles) };
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
