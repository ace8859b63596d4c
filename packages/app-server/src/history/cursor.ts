import { rpcError } from "../rpc/errors.js";

export interface HistoryCursor {
  id: string;
  before: number;
}

/**
 * History cursors are opaque to clients: a thread id and a position in its
 * branch, base64url-encoded. A cursor of another thread, or one that does
 * not decode, is invalidCursor.
 */
export function encodeCursor(cursor: HistoryCursor, threadId: string): string {
  return Buffer.from(JSON.stringify({ t: threadId, i: cursor.id, b: cursor.before })).toString("base64url");
}

export function decodeCursor(text: string, threadId: string): HistoryCursor {
  let value: { t?: unknown; i?: unknown; b?: unknown };
  try {
    value = JSON.parse(Buffer.from(text, "base64url").toString("utf8")) as typeof value;
  } catch {
    throw rpcError("invalidCursor", "the cursor is malformed");
  }
  if (value === null || typeof value !== "object" || typeof value.i !== "string" || !Number.isSafeInteger(value.b) || (value.b as number) < 0) {
    throw rpcError("invalidCursor", "the cursor is malformed");
  }
  if (value.t !== threadId) throw rpcError("invalidCursor", "the cursor belongs to another thread");
  return { id: value.i, before: value.b as number };
}
