/** The four common keys of an entry, read without parsing the rest of its line. */
export interface EntryPrefix {
  type: string;
  id: string;
  parentId: string | null;
  timestamp: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const CLOSE = 0x7d;

const OPEN_TYPE = Buffer.from('{"type":"');
const ID_KEY = Buffer.from('","id":"');
const PARENT_KEY = Buffer.from('","parentId":');
const NULL = Buffer.from("null");
const TIMESTAMP_KEY = Buffer.from(',"timestamp":');

const KNOWN_TYPES = [
  "message",
  "turn_start",
  "turn_end",
  "turn_files",
  "model_change",
  "thinking_level_change",
  "approval_mode",
  "plan_mode",
  "thread_name",
  "compaction",
  "label",
  "custom",
  "custom_message",
  "workspace",
].map((name) => ({ name, bytes: Buffer.from(name) }));

/** Position after `literal` when `buf` holds it at `at` (before `end`), else -1. */
function expect(buf: Buffer, at: number, end: number, literal: Buffer): number {
  if (at < 0 || at + literal.length > end) return -1;
  for (let i = 0; i < literal.length; i++) if (buf[at + i] !== literal[i]) return -1;
  return at + literal.length;
}

/**
 * End (the closing quote) of a non-empty string of printable ASCII without
 * escapes starting at `at`, else -1. Anything fancier goes the slow way
 * through JSON.parse, so no escape handling is needed here.
 */
function simpleStringEnd(buf: Buffer, at: number, end: number): number {
  if (at < 0) return -1;
  for (let i = at; i < end; i++) {
    const byte = buf[i]!;
    if (byte === QUOTE) return i > at ? i : -1;
    if (byte < 0x20 || byte > 0x7e || byte === BACKSLASH) return -1;
  }
  return -1;
}

function sameBytes(buf: Buffer, at: number, end: number, text: Buffer): boolean {
  if (end - at !== text.length) return false;
  for (let i = 0; i < text.length; i++) if (buf[at + i] !== text[i]) return false;
  return true;
}

function sameAsString(buf: Buffer, at: number, end: number, text: string | null): text is string {
  if (text === null || end - at !== text.length) return false;
  for (let i = 0; i < text.length; i++) if (buf[at + i] !== text.charCodeAt(i)) return false;
  return true;
}

/** Known type names come back as shared constants, so a big index holds no copies of them. */
function typeName(buf: Buffer, at: number, end: number): string {
  for (const known of KNOWN_TYPES) if (sameBytes(buf, at, end, known.bytes)) return known.name;
  return buf.toString("latin1", at, end);
}

/** Digits of a non-negative integer below 10^15 at `at`; the end, or -1. */
function integerEnd(buf: Buffer, at: number, end: number): number {
  let i = at;
  while (i < end && i - at < 16 && buf[i]! >= 0x30 && buf[i]! <= 0x39) i++;
  if (i === at || i - at > 15 || (buf[at] === 0x30 && i - at > 1)) return -1;
  return i;
}

/**
 * Reads `{"type":"…","id":"…","parentId":…,"timestamp":N` from buf[at, end)
 * as the writer lays it out, followed by `,` or `}`, into `out`. Returns false
 * when the line is laid out any other way; the caller then parses it whole.
 * `previousId` is usually the parent: matching it reuses its string.
 */
export function readEntryPrefix(buf: Buffer, at: number, end: number, previousId: string | null, out: EntryPrefix): boolean {
  const typeStart = expect(buf, at, end, OPEN_TYPE);
  const typeEnd = simpleStringEnd(buf, typeStart, end);
  const idStart = expect(buf, typeEnd, end, ID_KEY);
  const idEnd = simpleStringEnd(buf, idStart, end);
  const parentKeyEnd = expect(buf, idEnd, end, PARENT_KEY);
  if (parentKeyEnd < 0) return false;
  let cursor = expect(buf, parentKeyEnd, end, NULL);
  let parentStart = -1;
  let parentEnd = -1;
  if (cursor < 0) {
    if (buf[parentKeyEnd] !== QUOTE) return false;
    parentStart = parentKeyEnd + 1;
    parentEnd = simpleStringEnd(buf, parentStart, end);
    if (parentEnd < 0) return false;
    cursor = parentEnd + 1;
  }
  const digits = expect(buf, cursor, end, TIMESTAMP_KEY);
  const digitsEnd = digits < 0 ? -1 : integerEnd(buf, digits, end);
  if (digitsEnd < 0 || digitsEnd >= end || (buf[digitsEnd] !== COMMA && buf[digitsEnd] !== CLOSE)) return false;
  out.type = typeName(buf, typeStart, typeEnd);
  if (out.type === "session") return false;
  out.id = buf.toString("latin1", idStart, idEnd);
  if (parentStart < 0) out.parentId = null;
  else out.parentId = sameAsString(buf, parentStart, parentEnd, previousId) ? previousId : buf.toString("latin1", parentStart, parentEnd);
  let timestamp = 0;
  for (let i = digits; i < digitsEnd; i++) timestamp = timestamp * 10 + buf[i]! - 0x30;
  out.timestamp = timestamp;
  return true;
}
