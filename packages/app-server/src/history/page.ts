import { readBranchPage, type BranchCursor, type BranchPage } from "@knightcode/store/session/read-page";
import { SessionFileError } from "@knightcode/store/session/errors";
import { rpcError } from "../rpc/errors.js";
import { boundPage, turnForWireWhole, type WireTurn } from "../payloads/refs.js";
import type { PayloadSink } from "../payloads/store.js";
import { sessionError } from "../rpc/session-error.js";
import { decodeCursor, encodeCursor } from "./cursor.js";
import type { SavedTurnCache } from "./saved-turns.js";
import { BodylessTurn, turnsFromEntries, type HistoryTurn } from "./turns.js";

/** Turns per history page. */
export const PAGE_TURNS = 50;

/**
 * What a page read may pass over: the bodies of large saved turns the
 * server sent before (pageForWire hands those out again). Absent when a
 * turn read that way could not be reused and the page is read again whole.
 */
export function skipKnownTurns(saved: SavedTurnCache, threadId: string): SkipTurnBody {
  return (turnId, endId) => saved.holds(threadId, turnId, endId);
}

export type SkipTurnBody = (turnId: string, endId: string) => boolean;

/**
 * Whether pageForWire can make this page: every turn read without its body
 * is still kept. A caller that must not await between its answer's parts
 * asks first and, when not, reads the page again whole.
 */
export function pageReusable(page: BranchPage, threadId: string, store: PayloadSink, saved: SavedTurnCache, skipTurnId: string | undefined): boolean {
  try {
    turnsFromEntries(page.entries, { withItems: false, reuse: (key) => saved.get(threadId, key, store), ...(skipTurnId === undefined ? {} : { skipTurnId }) });
    return true;
  } catch (error) {
    if (error instanceof BodylessTurn) return false;
    throw error;
  }
}

/**
 * The raw page a cursor names: without one, the newest page of the branch
 * (of the branch ending at `leaf`, when given). Never locks or writes.
 */
export async function readPage(
  path: string,
  threadId: string,
  cursorText: string | undefined,
  skipTurnBody?: SkipTurnBody,
  leaf?: string,
): Promise<BranchPage> {
  const cursor = cursorText === undefined ? undefined : decodeCursor(cursorText, threadId);
  const start = cursor ? { cursor } : leaf !== undefined ? { leaf } : {};
  try {
    return await readBranchPage(path, { turns: PAGE_TURNS, ...start, ...(skipTurnBody ? { skipTurnBody } : {}) });
  } catch (error) {
    if (error instanceof SessionFileError && error.code === "notFound" && cursor) {
      throw rpcError("invalidCursor", "the cursor does not lead into this thread's history");
    }
    if (error instanceof SessionFileError && error.code === "notFound" && leaf !== undefined) {
      throw rpcError("invalidParams", `params.leafId: thread ${threadId} has no entry ${leaf}`);
    }
    throw sessionError(error, threadId);
  }
}

/** The page of `turns` turns that ends just before the entry at `before.before`: the newest page under a running turn. */
export async function readPageBefore(path: string, threadId: string, before: BranchCursor, turns: number, skipTurnBody?: SkipTurnBody): Promise<BranchPage> {
  try {
    return await readBranchPage(path, { turns, cursor: before, ...(skipTurnBody ? { skipTurnBody } : {}) });
  } catch (error) {
    throw sessionError(error, threadId);
  }
}

/**
 * A page as it travels: large turns and items as payload references, and
 * cut to `budget` bytes by leaving out its oldest turns, whose page the
 * returned cursor then names. Synchronous, so a caller can build its answer
 * and subscribe in one step. With `saved`, a large turn made for the wire
 * before is handed out again rather than rebuilt. A page read past a
 * turn's body needs that turn kept: callers ask pageReusable first, with
 * no await between, and read the page whole when not (else BodylessTurn).
 */
export function pageForWire(
  page: BranchPage,
  threadId: string,
  store: PayloadSink,
  budget: number,
  options: { skipTurnId?: string; saved?: SavedTurnCache } = {},
): { turns: WireTurn[]; nextCursor?: string } {
  const { skipTurnId, saved } = options;
  const keys = new Map<HistoryTurn, string>();
  const turns = turnsFromEntries(page.entries, {
    ...(skipTurnId === undefined ? {} : { skipTurnId }),
    ...(saved ? { reuse: (key: string) => saved.get(threadId, key, store), keys } : {}),
  }).map((turn) => {
    const { wire, selfContained } = turnForWireWhole(turn, store);
    const key = keys.get(turn);
    if (saved && key !== undefined && selfContained) saved.set(threadId, key, wire);
    return wire;
  });
  const bounded = boundPage(turns, budget);
  const next = bounded.omitted > 0 ? page.turnStarts.get(bounded.turns[0]!.id) : page.next;
  return { turns: bounded.turns, ...(next ? { nextCursor: encodeCursor(next, threadId) } : {}) };
}
