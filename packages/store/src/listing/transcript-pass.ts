import { createHash } from "node:crypto";
import { parseEntryLine, toHeader, type SessionHeader, type WorkspaceState } from "../session/format.js";
import { workspaceOf } from "../session/summary.js";
import { NAME_MAX, boundText, titleFromText, userMessageText } from "./title.js";

/** What a listing keeps of a transcript's entries, and where the next pass over appended bytes picks up. */
export interface PassProgress {
  /** Undefined until a user message was seen. */
  title?: string;
  name?: string;
  /** Where the thread runs, from its latest workspace entry; absent for a thread in its header's folder. */
  workspace?: WorkspaceState;
  /** End of the last LF-terminated line read; 0 when a later pass must start over. */
  scannedTo: number;
  /** A hash of the bytes just before `scannedTo`: they must still be there for a later pass to resume. */
  anchor: string;
}

/** The longest workspace field (a path, a ref) a listing keeps. */
export const WORKSPACE_FIELD_MAX = 4096;
/** Bytes hashed into an anchor. */
export const ANCHOR_BYTES = 256;
/** Bytes of a line's start examined to place it. */
export const HEAD = 512;
const MAX_HEADER = 64 * 1024;
/** A line longer than this is never parsed whole; a first user message that long is titled from its start. */
export const MAX_PARSED_LINE = 4 * 1024 * 1024;
/** How much of such a line is read to title it. */
export const TITLE_FROM_START = 64 * 1024;
/** Long lines of unknown role held before the first user message; beyond that they are passed over. */
const MAX_PENDING = 8;

const TYPED = Buffer.from('{"type":"');
const NAME_LINE = Buffer.from('{"type":"thread_name",');
const WORKSPACE_LINE = Buffer.from('{"type":"workspace",');
const MESSAGE_LINE = Buffer.from('{"type":"message",');
const ROLE_KEY = Buffer.from('"message":{"role":"');
const USER_ROLE = Buffer.from('user"');

/** Line 1 is not a session header: the file is not a transcript. */
export class NotATranscript extends Error {}

export function anchorOf(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("base64url").slice(0, 16);
}

function startsWith(buf: Buffer, at: number, end: number, literal: Buffer): boolean {
  if (end - at < literal.length) return false;
  for (let i = 0; i < literal.length; i++) if (buf[at + i] !== literal[i]) return false;
  return true;
}

function isBlank(buf: Buffer, at: number, end: number): boolean {
  for (let i = at; i < end; i++) {
    const byte = buf[i];
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) return false;
  }
  return true;
}

/** The role a message line declares in its first bytes, when our writer's layout makes it findable there. */
function roleOf(buf: Buffer, at: number, end: number): "user" | "other" | "unknown" {
  const head = buf.subarray(at, Math.min(end, at + HEAD));
  const key = head.indexOf(ROLE_KEY);
  if (key === -1) return "unknown";
  return startsWith(head, key + ROLE_KEY.length, head.length, USER_ROLE) ? "user" : "other";
}

/**
 * The text of a user message line too long to parse whole, from its first
 * bytes: the content string, or its first text part when that comes first.
 */
export function userTextFromStart(start: string): string | undefined {
  if (!/"message":\{"role":"user"/.test(start)) return undefined;
  const match = /"content":(?:"|\[\{"type":"text","text":")((?:[^"\\]|\\.)*)/.exec(start);
  if (match === null) return "";
  // The cut may fall inside a \uXXXX escape.
  const raw = match[1]!.replace(/\\u[0-9a-fA-F]{0,3}$/, "");
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return "";
  }
}

/** A long line to read again once the pass is over. */
export interface LongLine {
  offset: number;
  length: number;
}

/**
 * The per-line decisions of one pass: the header from line 1, the first
 * user message's title, the latest thread name and workspace. Only lines
 * whose first bytes name one of these are parsed; the rest are passed over
 * unread.
 */
export class PassState {
  header: SessionHeader | undefined;
  title: string | undefined;
  name: string | undefined;
  workspace: WorkspaceState | undefined;
  /** Long message lines before the first user message, in file order: one of them may be it. */
  readonly pending: LongLine[] = [];
  /** An unterminated last line gave a value, so a later pass must not resume after it. */
  usedUnterminated = false;

  constructor(
    private readonly path: string,
    resume: PassProgress | undefined,
  ) {
    this.title = resume?.title;
    this.name = resume?.name;
    this.workspace = resume?.workspace;
  }

  line(buf: Buffer, at: number, end: number, offset: number, terminated: boolean): void {
    if (offset === 0) return this.headerLine(buf.toString("utf8", at, end), end - at);
    if (startsWith(buf, at, end, NAME_LINE) || startsWith(buf, at, end, WORKSPACE_LINE)) return this.parsed(buf, at, end, terminated);
    if (startsWith(buf, at, end, MESSAGE_LINE)) {
      if (this.title === undefined && roleOf(buf, at, end) !== "other") this.parsed(buf, at, end, terminated);
      return;
    }
    // A line laid out some other way than our writer's: only parsing tells what it is.
    if (!startsWith(buf, at, end, TYPED) && !isBlank(buf, at, end)) this.parsed(buf, at, end, terminated);
  }

  /** A line longer than the read buffer: only its head was seen. */
  longLine(head: Buffer, offset: number, length: number): void {
    if (offset === 0) throw new NotATranscript(`${this.path}: line 1 is too long for a header`);
    if (this.title !== undefined || this.pending.length >= MAX_PENDING) return;
    if (startsWith(head, 0, head.length, MESSAGE_LINE) && roleOf(head, 0, head.length) !== "other") this.pending.push({ offset, length });
  }

  /** Resolves a pending long line, given its text (cut when the line exceeds what is parsed whole). */
  resolvePending(text: string, whole: boolean): boolean {
    const user = whole ? this.userText(text) : userTextFromStart(text);
    if (user === undefined) return false;
    this.title = titleFromText(user);
    return true;
  }

  private headerLine(text: string, bytes: number): void {
    if (bytes > MAX_HEADER) throw new NotATranscript(`${this.path}: line 1 is too long for a header`);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new NotATranscript(`${this.path}: line 1 is not JSON`);
    }
    this.header = toHeader(value);
    if (this.header === undefined) throw new NotATranscript(`${this.path}: line 1 is not a session header`);
  }

  private userText(text: string): string | undefined {
    const parsed = parseEntryLine(text);
    return parsed.ok && parsed.entry.type === "message" ? userMessageText((parsed.entry as { message: unknown }).message) : undefined;
  }

  private parsed(buf: Buffer, at: number, end: number, terminated: boolean): void {
    const parsed = parseEntryLine(buf.toString("utf8", at, end));
    if (!parsed.ok) return;
    const entry = parsed.entry as { type: string; name?: unknown; message?: unknown };
    if (entry.type === "thread_name" && typeof entry.name === "string") {
      this.name = boundText(entry.name, NAME_MAX);
    } else if (entry.type === "workspace") {
      const workspace = workspaceOf(entry as unknown as Record<string, unknown>);
      // Our writer's paths and refs are far shorter; a summary never carries a giant string.
      if (workspace === undefined || Object.values(workspace).some((value) => value.length > WORKSPACE_FIELD_MAX)) return;
      this.workspace = workspace;
    } else if (entry.type === "message" && this.title === undefined) {
      const text = userMessageText(entry.message);
      if (text === undefined) return;
      this.title = titleFromText(text);
    } else {
      return;
    }
    if (!terminated) this.usedUnterminated = true;
  }
}
