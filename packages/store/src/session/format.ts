import type { ImageContent, Message, TextContent } from "@mariozechner/pi-ai";

/** The format version this code writes. Later versions only add kinds and fields. */
export const SESSION_FORMAT_VERSION = 1;

/** Line 1 of every transcript. */
export interface SessionHeader {
  type: "session";
  version: number;
  /** The thread id, a UUID v4. */
  id: string;
  cwd: string;
  /** ISO 8601. */
  createdAt: string;
  /** The header id of the transcript this one was forked from. */
  forkedFromId?: string;
  /** A sub-agent's: the thread whose model started it. */
  parentThreadId?: string;
  /** A sub-agent's: the id of the parent's tool call that started it; only with parentThreadId. */
  parentCallId?: string;
}

/** The four keys every entry starts with, in this order on disk. */
export interface EntryBase<T extends string> {
  type: T;
  /** Unique within the file. */
  id: string;
  parentId: string | null;
  /** Unix milliseconds. */
  timestamp: number;
}

export interface MessageEntry extends EntryBase<"message"> {
  message: Message;
}

/** Its `id` is the turn id. */
export type TurnStartEntry = EntryBase<"turn_start">;

export type TurnEndStatus = "completed" | "failed" | "interrupted";

export interface TurnEndEntry extends EntryBase<"turn_end"> {
  turnId: string;
  status: TurnEndStatus;
  error?: { message: string; kind: string };
  files?: Array<{ path: string; additions: number; deletions: number }>;
}

/**
 * What a turn changed in its git working tree, written once it settled:
 * the working tree before and after it as tree ids (kept from `git gc` by
 * a ref), and the net line totals of each file that changed.
 */
export interface TurnFilesEntry extends EntryBase<"turn_files"> {
  turnId: string;
  before: string;
  after: string;
  files: Array<{ path: string; additions: number; deletions: number }>;
}

export interface ModelChangeEntry extends EntryBase<"model_change"> {
  provider: string;
  modelId: string;
}

export interface ThinkingLevelChangeEntry extends EntryBase<"thinking_level_change"> {
  /** Kept as a string: the levels a model accepts are the model catalogue's business. */
  thinkingLevel: string;
}

export interface ApprovalModeEntry extends EntryBase<"approval_mode"> {
  /** Validated by the server, not here. */
  mode: string;
}

/** Plan mode turned on or off (thread/settings/update, /plan, an approved plan). */
export interface PlanModeEntry extends EntryBase<"plan_mode"> {
  on: boolean;
}

export interface ThreadNameEntry extends EntryBase<"thread_name"> {
  name: string;
}

export interface CompactionEntry extends EntryBase<"compaction"> {
  summary: string;
  firstKeptEntryId: string;
  tokensBefore: number;
}

export interface LabelEntry extends EntryBase<"label"> {
  targetId: string;
  /** Absent: the target's label is removed. */
  label?: string;
}

/** Extension state; never sent to the model. */
export interface CustomEntry extends EntryBase<"custom"> {
  customType: string;
  data: unknown;
}

/** A message an extension adds to the model's context. */
export interface CustomMessageEntry extends EntryBase<"custom_message"> {
  customType: string;
  content: string | Array<TextContent | ImageContent>;
  display: boolean;
  details?: unknown;
}

/** What the user answered when a tool call asked for approval (the server's gate records it). */
export interface ApprovalEntry extends EntryBase<"approval"> {
  toolCallId: string;
  tool: string;
  /** accept, acceptForSession, acceptPrefixForSession, decline or cancel; validated by the server. */
  decision: string;
  message?: string;
  /** A cancel because nobody was connected to answer while the request was held: the call reads as failed, not declined. Absent in older transcripts. */
  unattended?: boolean;
}

/**
 * What the classifier gate made of a tool call it judged (the server's gate
 * records it), and, when the user was asked, their answer.
 */
export interface ClassificationEntry extends EntryBase<"classification"> {
  toolCallId: string;
  tool: string;
  /** safe, risky or unjudged (the classifier could not answer). */
  verdict: string;
  reason: string;
  /** Absent when nobody was asked. */
  confirmed?: boolean;
  /** Not confirmed because nobody was connected to answer while the question was held: the call reads as failed, not declined. */
  unattended?: boolean;
}

/** Where a thread runs: the user's checkout, or a managed worktree of its own. */
export interface WorkspaceState {
  mode: "local" | "worktree";
  /** The folder the thread runs in: its tools' working folder, inside the checkout or the worktree. */
  cwd: string;
  /** The worktree's folder, in worktree mode. */
  path?: string;
  /** The commit the worktree was made from (its full id). */
  baseRef?: string;
  /** The branch the thread works on, once it has one. */
  branch?: string;
}

/**
 * The thread moved, or was born somewhere other than its header's folder:
 * the latest one on the branch says where it runs now. The header's cwd
 * stays the project folder it belongs to.
 */
export interface WorkspaceEntry extends EntryBase<"workspace">, WorkspaceState {}

/**
 * The branch starts again before turn `turnId` (thread/rewind): its parent
 * is the entry before that turn's start, so the turn and every later one
 * stay in the file on the branch left behind, whose leaf was `fromLeafId`.
 */
export interface RewindEntry extends EntryBase<"rewind"> {
  turnId: string;
  fromLeafId: string;
}

export type KnownEntry =
  | MessageEntry
  | ApprovalEntry
  | ClassificationEntry
  | TurnStartEntry
  | TurnEndEntry
  | TurnFilesEntry
  | ModelChangeEntry
  | ThinkingLevelChangeEntry
  | ApprovalModeEntry
  | PlanModeEntry
  | ThreadNameEntry
  | CompactionEntry
  | LabelEntry
  | CustomEntry
  | CustomMessageEntry
  | WorkspaceEntry
  | RewindEntry;

export type KnownEntryType = KnownEntry["type"];

/** A kind written by a newer version: kept and passed through as it is. */
export interface UnknownEntry extends EntryBase<string> {
  readonly [field: string]: unknown;
}

export type SessionEntry = KnownEntry | UnknownEntry;

type WithoutBase<T> = T extends unknown ? Omit<T, "id" | "parentId" | "timestamp"> & { timestamp?: number } : never;

/** What a writer hands to `append`: the entry without the keys the file assigns. */
export type NewEntry = WithoutBase<KnownEntry>;

export type EntryOfType<T extends string> = Extract<KnownEntry, { type: T }>;

type FieldCheck = (entry: Record<string, unknown>) => string | undefined;

const isString = (value: unknown): value is string => typeof value === "string";
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

const isCount = (value: unknown): boolean => Number.isInteger(value) && (value as number) >= 0;
const isFileTotals = (value: unknown): boolean => isObject(value) && isString(value.path) && isCount(value.additions) && isCount(value.deletions);

function requireStrings(...fields: string[]): FieldCheck {
  return (entry) => fields.find((field) => !isString(entry[field]));
}

/** The fields each known kind must carry; a check answers the first bad field. */
const KIND_CHECKS: Record<KnownEntryType, FieldCheck> = {
  message: (e) => (isObject(e.message) && isString(e.message.role) ? undefined : "message"),
  turn_start: () => undefined,
  turn_end: (e) => {
    if (!isString(e.turnId)) return "turnId";
    if (e.status !== "completed" && e.status !== "failed" && e.status !== "interrupted") return "status";
    if (e.error !== undefined && !(isObject(e.error) && isString(e.error.message))) return "error";
    return e.files !== undefined && !Array.isArray(e.files) ? "files" : undefined;
  },
  turn_files: (e) => requireStrings("turnId", "before", "after")(e) ?? (Array.isArray(e.files) && e.files.every(isFileTotals) ? undefined : "files"),
  model_change: requireStrings("provider", "modelId"),
  thinking_level_change: requireStrings("thinkingLevel"),
  approval_mode: requireStrings("mode"),
  plan_mode: (e) => (typeof e.on === "boolean" ? undefined : "on"),
  thread_name: requireStrings("name"),
  compaction: (e) => requireStrings("summary", "firstKeptEntryId")(e) ?? (typeof e.tokensBefore === "number" ? undefined : "tokensBefore"),
  label: (e) => (isString(e.targetId) ? (e.label === undefined || isString(e.label) ? undefined : "label") : "targetId"),
  custom: requireStrings("customType"),
  approval: (e) =>
    requireStrings("toolCallId", "tool", "decision")(e) ??
    (e.message === undefined || isString(e.message) ? undefined : "message") ??
    (e.unattended === undefined || typeof e.unattended === "boolean" ? undefined : "unattended"),
  classification: (e) =>
    requireStrings("toolCallId", "tool", "verdict", "reason")(e) ??
    (e.confirmed === undefined || typeof e.confirmed === "boolean" ? undefined : "confirmed") ??
    (e.unattended === undefined || typeof e.unattended === "boolean" ? undefined : "unattended"),
  workspace: (e) => {
    if (e.mode !== "local" && e.mode !== "worktree") return "mode";
    if (!isString(e.cwd) || e.cwd === "") return "cwd";
    return ["path", "baseRef", "branch"].find((field) => e[field] !== undefined && !isString(e[field]));
  },
  rewind: requireStrings("turnId", "fromLeafId"),
  custom_message: (e) => {
    if (!isString(e.customType)) return "customType";
    if (!isString(e.content) && !Array.isArray(e.content)) return "content";
    return typeof e.display === "boolean" ? undefined : "display";
  },
};

export function isKnownEntry(entry: SessionEntry): entry is KnownEntry {
  return Object.hasOwn(KIND_CHECKS, entry.type);
}

/** A parsed line, or why it is not a usable entry. */
export type EntryParse = { ok: true; entry: SessionEntry } | { ok: false; reason: string };

/** Checks a parsed JSON value: the four common keys, then the fields its kind requires. */
export function toEntry(value: unknown): EntryParse {
  if (!isObject(value)) return { ok: false, reason: "not a JSON object" };
  if (!isString(value.type) || value.type === "" || value.type === "session") return { ok: false, reason: "bad type" };
  if (!isString(value.id) || value.id === "") return { ok: false, reason: "bad id" };
  if (value.parentId !== null && !isString(value.parentId)) return { ok: false, reason: "bad parentId" };
  if (typeof value.timestamp !== "number" || !Number.isFinite(value.timestamp)) return { ok: false, reason: "bad timestamp" };
  const check = Object.hasOwn(KIND_CHECKS, value.type) ? KIND_CHECKS[value.type as KnownEntryType] : undefined;
  const badField = check?.(value);
  if (badField !== undefined) return { ok: false, reason: `malformed ${value.type} entry: bad ${badField}` };
  return { ok: true, entry: value as unknown as SessionEntry };
}

export function parseEntryLine(text: string): EntryParse {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: `not JSON (${(error as Error).message})` };
  }
  return toEntry(value);
}

/** The header, or undefined when the value is not one. */
export function toHeader(value: unknown): SessionHeader | undefined {
  if (!isObject(value) || value.type !== "session") return undefined;
  if (!Number.isInteger(value.version) || (value.version as number) < 1) return undefined;
  if (!isString(value.id) || value.id === "" || !isString(value.cwd) || !isString(value.createdAt)) return undefined;
  if (value.forkedFromId !== undefined && !isString(value.forkedFromId)) return undefined;
  if (value.parentThreadId !== undefined && !isParentField(value.parentThreadId)) return undefined;
  // A call id means nothing without the thread that made the call.
  if (value.parentCallId !== undefined && (value.parentThreadId === undefined || !isParentField(value.parentCallId))) return undefined;
  return value as unknown as SessionHeader;
}

/** The longest parent thread or call id a header may carry. */
export const PARENT_FIELD_MAX = 256;

const isParentField = (value: unknown): value is string => isString(value) && value.length >= 1 && value.length <= PARENT_FIELD_MAX;

export function serializeHeader(header: SessionHeader): string {
  const { type, version, id, cwd, createdAt, forkedFromId, parentThreadId, parentCallId, ...rest } = header;
  return JSON.stringify({
    ...{ type, version, id, cwd, createdAt },
    ...(forkedFromId === undefined ? {} : { forkedFromId }),
    ...(parentThreadId === undefined ? {} : { parentThreadId }),
    ...(parentCallId === undefined ? {} : { parentCallId }),
    ...rest,
  });
}

/**
 * One line without its LF. The four common keys are written by hand so they
 * lead the line in a fixed order whatever the object's own key order (an
 * integer-like key would otherwise jump ahead of them).
 */
export function serializeEntry(entry: SessionEntry): string {
  const { type, id, parentId, timestamp, ...rest } = entry as EntryBase<string> & Record<string, unknown>;
  const head = `{"type":${JSON.stringify(type)},"id":${JSON.stringify(id)},"parentId":${JSON.stringify(parentId)},"timestamp":${JSON.stringify(timestamp)}`;
  const body = JSON.stringify(rest);
  return body === "{}" ? `${head}}` : `${head},${body.slice(1)}`;
}
