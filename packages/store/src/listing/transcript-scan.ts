import type { FileHandle } from "node:fs/promises";
import { resolve } from "node:path";
import type { SessionHeader } from "../session/format.js";
import { ANCHOR_BYTES, anchorOf, HEAD, MAX_PARSED_LINE, NotATranscript, PassState, TITLE_FROM_START, type PassProgress } from "./transcript-pass.js";

/** Bytes read at once; a caller's scratch buffer of this size is reused across transcripts. */
export const SCAN_CHUNK = 256 * 1024;
const CHUNK = SCAN_CHUNK;
const LF = 0x0a;

/** The header fields a listing shows. */
export type ThreadHeader = Pick<SessionHeader, "id" | "cwd" | "createdAt" | "forkedFromId" | "parentThreadId" | "parentCallId">;

/** What a listing knows of a transcript; given back as the cached progress of the same file, a later pass reads only appended bytes. */
export interface TranscriptFacts extends PassProgress {
  header: ThreadHeader;
}

/** The header fields kept, with the cwd resolved (filters compare resolved paths) and the time in canonical ISO form when it parses. */
function threadHeader(header: SessionHeader): ThreadHeader {
  const time = Date.parse(header.createdAt);
  const picked: ThreadHeader = { id: header.id, cwd: resolve(header.cwd), createdAt: Number.isNaN(time) ? header.createdAt : new Date(time).toISOString() };
  if (header.forkedFromId !== undefined) picked.forkedFromId = header.forkedFromId;
  if (header.parentThreadId !== undefined) picked.parentThreadId = header.parentThreadId;
  if (header.parentCallId !== undefined) picked.parentCallId = header.parentCallId;
  return picked;
}

/** Reads at `position` until `buffer` is full or the file ends; counts what it read. */
async function readAt(file: FileHandle, buffer: Buffer, position: number, count: (bytes: number) => void): Promise<number> {
  let done = 0;
  while (done < buffer.length) {
    const { bytesRead } = await file.read(buffer, done, buffer.length - done, position + done);
    if (bytesRead === 0) break;
    count(bytesRead);
    done += bytesRead;
  }
  return done;
}

/** The bytes before `resume.scannedTo` when they are still those the cached progress was made from, else undefined. */
async function resumeBytes(file: FileHandle, resume: TranscriptFacts | undefined, size: number, count: (bytes: number) => void): Promise<Buffer | undefined> {
  if (resume === undefined || resume.scannedTo === 0 || resume.scannedTo > size) return undefined;
  const from = Math.max(0, resume.scannedTo - ANCHOR_BYTES);
  const bytes = Buffer.allocUnsafe(resume.scannedTo - from);
  const read = await readAt(file, bytes, from, count);
  return read === bytes.length && anchorOf(bytes) === resume.anchor ? bytes : undefined;
}

/** The last ANCHOR_BYTES before `base + at`, from the buffer and, when they join up, the bytes kept from before it. */
function bytesBefore(buffer: Buffer, at: number, base: number, before: Buffer | undefined): Buffer | undefined {
  if (at >= ANCHOR_BYTES || base === 0) return Buffer.from(buffer.subarray(Math.max(0, at - ANCHOR_BYTES), at));
  if (before === undefined) return undefined;
  const joined = Buffer.concat([before, buffer.subarray(0, at)]);
  return joined.subarray(Math.max(0, joined.length - ANCHOR_BYTES));
}

interface Walk {
  scannedTo: number;
  /** The bytes just before `scannedTo` (ANCHOR_BYTES at most), unless they have to be read again. */
  recent: Buffer | undefined;
}

/**
 * One forward pass over [from, size): splits lines on LF and hands each to
 * the state, whole when it fits the buffer, by its head when it does not.
 */
async function walk(
  file: FileHandle,
  from: number,
  size: number,
  state: PassState,
  recent: Buffer | undefined,
  count: (bytes: number) => void,
  scratch?: Buffer,
): Promise<Walk> {
  const length = Math.max(1, Math.min(CHUNK, size - from));
  // Nothing keeps a view of this buffer (what is kept is copied out), so a scratch buffer serves transcript after transcript.
  const buffer = scratch !== undefined && scratch.length >= length ? scratch.subarray(0, length) : Buffer.allocUnsafe(length);
  const result: Walk = { scannedTo: from, recent };
  let base = from;
  let filled = 0;
  let position = from;
  let long: { offset: number; head: Buffer } | undefined;
  while (position < size) {
    const { bytesRead } = await file.read(buffer, filled, Math.min(buffer.length - filled, size - position), position);
    if (bytesRead === 0) break;
    count(bytesRead);
    position += bytesRead;
    filled += bytesRead;
    let at = 0;
    if (long !== undefined) {
      const lf = buffer.subarray(0, filled).indexOf(LF);
      if (lf === -1) {
        base += filled;
        filled = 0;
        continue;
      }
      state.longLine(long.head, long.offset, base + lf - long.offset);
      long = undefined;
      at = lf + 1;
    }
    for (let lf = buffer.indexOf(LF, at); lf !== -1 && lf < filled; lf = buffer.indexOf(LF, at)) {
      state.line(buffer, at, lf, base + at, true);
      at = lf + 1;
    }
    if (at > 0) {
      // After a long line, base is past scannedTo: the kept bytes no longer join up.
      result.recent = bytesBefore(buffer, at, base, base === result.scannedTo ? result.recent : undefined);
      result.scannedTo = base + at;
    }
    if (at === 0 && filled === buffer.length && position < size) {
      // A line longer than the buffer: keep its head, skip to its end.
      long = { offset: base, head: Buffer.from(buffer.subarray(0, HEAD)) };
      base += filled;
      filled = 0;
    } else {
      buffer.copy(buffer, 0, at, filled);
      base += at;
      filled -= at;
    }
  }
  if (long !== undefined) state.longLine(long.head, long.offset, base + filled - long.offset);
  else if (filled > 0) state.line(buffer, 0, filled, base, false);
  return result;
}

/** Reads the long lines that may be the first user message, in order, until one is. */
async function resolvePending(file: FileHandle, state: PassState, count: (bytes: number) => void): Promise<void> {
  for (const line of state.pending) {
    const whole = line.length <= MAX_PARSED_LINE;
    const bytes = Buffer.allocUnsafe(whole ? line.length : TITLE_FROM_START);
    const read = await readAt(file, bytes, line.offset, count);
    if (state.resolvePending(bytes.toString("utf8", 0, read), whole && read === line.length)) return;
  }
}

/**
 * What the listing needs from a transcript of `size` bytes: the header, the
 * first user message's title, the latest name. Given the progress of an
 * earlier pass over the same file, only the bytes appended since are read.
 * Throws NotATranscript when line 1 is not a session header.
 */
export async function scanTranscript(
  file: FileHandle,
  path: string,
  size: number,
  resume: TranscriptFacts | undefined,
  count: (bytes: number) => void,
  scratch?: Buffer,
): Promise<TranscriptFacts> {
  const before = await resumeBytes(file, resume, size, count);
  const resuming = before !== undefined;
  const state = new PassState(path, resuming ? resume : undefined);
  const from = resuming ? resume!.scannedTo : 0;
  const walked = await walk(file, from, size, state, before, count, scratch);
  await resolvePending(file, state, count);
  const header = resuming ? resume!.header : state.header && threadHeader(state.header);
  if (header === undefined) throw new NotATranscript(`${path}: the file is empty`);
  let recent = walked.recent;
  if (recent === undefined && walked.scannedTo > 0) {
    const start = Math.max(0, walked.scannedTo - ANCHOR_BYTES);
    recent = Buffer.allocUnsafe(walked.scannedTo - start);
    recent = recent.subarray(0, await readAt(file, recent, start, count));
  }
  const anchor = recent === undefined ? "" : anchorOf(recent);
  const scannedTo = state.usedUnterminated ? 0 : walked.scannedTo;
  const facts: TranscriptFacts = { header, scannedTo, anchor };
  if (state.title !== undefined) facts.title = state.title;
  if (state.name !== undefined) facts.name = state.name;
  if (state.workspace !== undefined) facts.workspace = state.workspace;
  return facts;
}
