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

/** Position after `literal` when `buf` holds it at `at`, else -1. */
function expect(buf: Buffer, at: number, literal: Buffer): number {
  if (at < 0 || at + literal.length > buf.length) return -1;
  for (let i = 0; i < literal.length; i++) if (buf[at + i] !== literal[i]) return -1;
  return at + literal.length;
}

/**
 * End (the closing quote) of a string of printable ASCII without escapes
 * starting at `at`, else -1. Anything fancier goes the slow way through
 * JSON.parse, so no escape handling is needed here.
 */
function simpleStringEnd(buf: Buffer, at: number): number {
  if (at < 0) return -1;
  for (let i = at; i < buf.length; i++) {
    const byte = buf[i]!;
    if (byte === QUOTE) return i > at ? i : -1;
    if (byte < 0x20 || byte > 0x7e || byte === BACKSLASH) return -1;
  }
  return -1;
}

/** Digits of a non-negative integer up to 2^53 at `at`; returns [value, end] or undefined. */
function readInteger(buf: Buffer, at: number): [number, number] | undefined {
  let value = 0;
  let i = at;
  for (; i < buf.length && i - at < 16; i++) {
    const digit = buf[i]! - 0x30;
    if (digit < 0 || digit > 9) break;
    value = value * 10 + digit;
  }
  if (i === at || (buf[at] === 0x30 && i - at > 1)) return undefined;
  return [value, i];
}

/**
 * Reads `{"type":"…","id":"…","parentId":…,"timestamp":N` as the writer lays
 * it out, followed by `,` or `}`. Returns undefined when the line is laid out
 * any other way; the caller then parses it whole.
 */
export function readEntryPrefix(head: Buffer): EntryPrefix | undefined {
  let at = expect(head, 0, OPEN_TYPE);
  const typeEnd = simpleStringEnd(head, at);
  if (typeEnd < 0) return undefined;
  const type = head.toString("latin1", at, typeEnd);
  at = expect(head, typeEnd, ID_KEY);
  const idEnd = simpleStringEnd(head, at);
  if (idEnd < 0) return undefined;
  const id = head.toString("latin1", at, idEnd);
  at = expect(head, idEnd, PARENT_KEY);
  let parentId: string | null = null;
  const afterNull = expect(head, at, NULL);
  if (afterNull >= 0) {
    at = afterNull;
  } else {
    if (at < 0 || head[at] !== QUOTE) return undefined;
    const parentEnd = simpleStringEnd(head, at + 1);
    if (parentEnd < 0) return undefined;
    parentId = head.toString("latin1", at + 1, parentEnd);
    at = parentEnd + 1;
  }
  at = expect(head, at, TIMESTAMP_KEY);
  if (at < 0) return undefined;
  const timestamp = readInteger(head, at);
  if (timestamp === undefined) return undefined;
  const next = head[timestamp[1]];
  if (next !== COMMA && next !== CLOSE) return undefined;
  if (type === "session") return undefined;
  return { type, id, parentId, timestamp: timestamp[0] };
}
