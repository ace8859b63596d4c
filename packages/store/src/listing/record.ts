import { PARENT_FIELD_MAX, type WorkspaceState } from "../session/format.js";
import { NAME_MAX, TITLE_MAX } from "./title.js";
import { WORKSPACE_FIELD_MAX } from "./transcript-pass.js";
import type { ThreadHeader, TranscriptFacts } from "./transcript-scan.js";

/**
 * One `.jsonl` file of a sessions folder as the listing knows it: the stat
 * it was read at, and what was found in it. A record is made once and only
 * replaced, never changed (but for decoding its facts in place), so the
 * folder's sorted rows and every continuation snapshot share the same
 * records rather than copying them.
 *
 * Facts read from the index file stay the text they were stored as until
 * a page, a filter or a tie in the order needs them: a first listing of
 * 100,000 threads decodes fifty.
 */
export interface IndexedFile {
  /** The file's name in its folder. */
  readonly name: string;
  /** The folder, ending in the path separator: the path is `dir + name`. */
  readonly dir: string;
  readonly size: number;
  readonly mtimeMs: number;
  readonly ino: number;
  /** Absent for a file that is not a transcript; stored facts until decoded. */
  facts?: TranscriptFacts | StoredFacts;
}

/**
 * Facts in their stored form, not decoded: a stretch of an index shard's
 * text (ASCII, read as one string), or the encoded text of what a scan
 * found. A few hundred bytes where the decoded objects take several times
 * that: the form every record keeps between pages.
 */
export class StoredFacts {
  private constructor(
    private readonly source: string,
    private readonly start: number,
    private readonly end: number,
  ) {}

  static inShard(text: string, start: number, end: number): StoredFacts {
    return new StoredFacts(text, start, end);
  }

  static of(facts: TranscriptFacts, fileName: string, size: number): StoredFacts {
    const text = encodeFacts(facts, fileName, size);
    return new StoredFacts(text, 0, text.length);
  }

  text(): string {
    // A slice of the whole string is that string: no copy for facts a scan encoded.
    return this.source.slice(this.start, this.end);
  }
}

/** A record whose file is a transcript: one row of a listing. */
export type Row = IndexedFile & { facts: TranscriptFacts | StoredFacts };

export const isRow = (file: IndexedFile): file is Row => file.facts !== undefined;

export const pathOf = (file: IndexedFile): string => file.dir + file.name;

/** The mtime a client sees: whole milliseconds. */
export const updatedMsOf = (file: IndexedFile): number => Math.floor(file.mtimeMs);

/** Facts that did not decode: a record the index file got wrong. Its transcript must be read again. */
export class BadRecord extends Error {}

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
const isText = (value: unknown, max: number): value is string => typeof value === "string" && value.length <= max;
const isOptionalText = (value: unknown, max: number): value is string | null => value === null || isText(value, max);
/** A parent field as a header may carry it (toHeader), or null. */
const isParent = (value: unknown): value is string | null => value === null || (isText(value, PARENT_FIELD_MAX) && value !== "");
/** The longest cwd a record may name. */
const CWD_MAX = 64 * 1024;

/**
 * A record's facts, decoded. `keep` keeps them decoded on the record, for
 * what needs them again and again (a cwd filter); a page's summaries decode
 * and let go, so that paging through 50,000 threads leaves every record as
 * compact as before. Throws BadRecord when the stored text is not what this
 * code writes; the record must then be replaced by a read of its transcript.
 */
export function factsOf(row: Row, keep = false): TranscriptFacts {
  if (!(row.facts instanceof StoredFacts)) return row.facts;
  const facts = decodeFacts(row.facts.text(), row.name, row.size);
  if (facts === undefined) throw new BadRecord(`the index's record of ${row.name} is damaged`);
  if (keep) row.facts = facts;
  return facts;
}

/** factsOf, or undefined for a record whose facts do not decode. */
export function factsOrUndefined(row: Row, keep = false): TranscriptFacts | undefined {
  try {
    return factsOf(row, keep);
  } catch {
    return undefined;
  }
}

/**
 * The id and creation time a transcript's file name carries, as
 * sessionFileName writes it: `<ISO time with - for : and .>_<id>.jsonl`.
 */
function fromFileName(fileName: string): { id: string; createdAt: string } | undefined {
  if (fileName.length < 32 || fileName[24] !== "_" || !fileName.endsWith(".jsonl")) return undefined;
  const stamp = fileName.slice(0, 24);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/.test(stamp)) return undefined;
  return { id: fileName.slice(25, -6), createdAt: `${stamp.slice(0, 13)}:${stamp.slice(14, 16)}:${stamp.slice(17, 19)}.${stamp.slice(20)}` };
}

/**
 * The facts' stored form: `[cwd, id, createdAt, scannedTo, anchor, title,
 * name, forkedFromId, workspace, parentThreadId, parentCallId]`, null for
 * what is absent. What the file's
 * name and size already say is not repeated: id and createdAt are null
 * when the name carries both, scannedTo when it is the size. ASCII only.
 */
export function encodeFacts(facts: TranscriptFacts | StoredFacts, fileName: string, size: number): string {
  if (facts instanceof StoredFacts) return facts.text();
  const { header, title, name, scannedTo, anchor, workspace } = facts;
  const named = fromFileName(fileName);
  const implied = named !== undefined && named.id === header.id && named.createdAt === header.createdAt;
  const place = workspace === undefined ? null : [workspace.mode, workspace.cwd, workspace.path ?? null, workspace.baseRef ?? null, workspace.branch ?? null];
  const fields = [
    header.cwd,
    implied ? null : header.id,
    implied ? null : header.createdAt,
    scannedTo === size ? null : scannedTo,
    anchor,
    title ?? null,
    name ?? null,
    header.forkedFromId ?? null,
    place,
    header.parentThreadId ?? null,
    header.parentCallId ?? null,
  ];
  return JSON.stringify(fields).replace(/[\u007f-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** The cwd strings of decoded records, one per project; bounded, past which each record keeps its own. */
const cwds = new Map<string, string>();
const MAX_INTERNED = 4096;

function intern(cwd: string): string {
  const known = cwds.get(cwd);
  if (known !== undefined) return known;
  if (cwds.size < MAX_INTERNED) cwds.set(cwd, cwd);
  return cwd;
}

/** Checks every field; undefined when anything is not what encodeFacts makes of what a scan finds. */
export function decodeFacts(text: string, fileName: string, size: number): TranscriptFacts | undefined {
  // encodeFacts writes ASCII: anything else was not written by it.
  if (/[^\x20-\x7e]/.test(text)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  // Nine fields: a record of a version before sub-agents, which had no parent fields.
  if (!Array.isArray(value) || (value.length !== 11 && value.length !== 9)) return undefined;
  const [cwd, storedId, storedCreatedAt, storedScannedTo, anchor, title, name, forkedFromId, place, parentThreadId = null, parentCallId = null] =
    value as unknown[];
  const named = storedId === null && storedCreatedAt === null ? fromFileName(fileName) : { id: storedId, createdAt: storedCreatedAt };
  if (named === undefined) return undefined;
  const { id, createdAt } = named;
  const scannedTo = storedScannedTo === null ? size : storedScannedTo;
  if (!isText(cwd, CWD_MAX) || !isText(id, 256) || !isText(createdAt, 64)) return undefined;
  if (!isCount(scannedTo) || scannedTo > size || !isText(anchor, 64)) return undefined;
  // Two UTF-16 units per code point at most: a longer cached title was not made by this code.
  if (!isOptionalText(title, 2 * TITLE_MAX) || !isOptionalText(name, 2 * NAME_MAX) || !isOptionalText(forkedFromId, 256)) return undefined;
  if (!isParent(parentThreadId) || !isParent(parentCallId) || (parentCallId !== null && parentThreadId === null)) return undefined;
  const workspace = place === null ? null : toWorkspace(place);
  if (workspace === undefined) return undefined;
  const header: ThreadHeader = { id, cwd: intern(cwd), createdAt };
  if (forkedFromId !== null) header.forkedFromId = forkedFromId;
  if (parentThreadId !== null) header.parentThreadId = parentThreadId;
  if (parentCallId !== null) header.parentCallId = parentCallId;
  const facts: TranscriptFacts = { header, scannedTo, anchor };
  if (title !== null) facts.title = title;
  if (name !== null) facts.name = name;
  if (workspace !== null) facts.workspace = workspace;
  return facts;
}

function toWorkspace(value: unknown): WorkspaceState | undefined {
  if (!Array.isArray(value) || value.length !== 5) return undefined;
  const [mode, cwd, path, baseRef, branch] = value as unknown[];
  if ((mode !== "local" && mode !== "worktree") || !isText(cwd, WORKSPACE_FIELD_MAX) || cwd === "") return undefined;
  if (![path, baseRef, branch].every((field) => isOptionalText(field, WORKSPACE_FIELD_MAX))) return undefined;
  const workspace: WorkspaceState = { mode, cwd };
  if (path !== null) workspace.path = path as string;
  if (baseRef !== null) workspace.baseRef = baseRef as string;
  if (branch !== null) workspace.branch = branch as string;
  return workspace;
}

/** The longest stored facts a record may hold: every field at its bound, with room for escapes. */
export const MAX_FACTS_TEXT = 6 * (CWD_MAX + 5 * WORKSPACE_FIELD_MAX + 2 * NAME_MAX + 2 * TITLE_MAX + 2 * PARENT_FIELD_MAX + 1024);
