import type { HistoryItem, Item, ItemOf, ItemReference, Turn } from "@knightcode/app-server-protocol";
import type { PayloadRef, PayloadSink } from "./store.js";

/** A turn as history carries it; `payloadRef` replaces `items` when the turn is referenced whole. */
export type WireTurn = Turn;
/** An item as history carries it: inline, or `{id, type, index?, payloadRef}`. */
export type WireItem = HistoryItem;
type ToolCall = ItemOf<"toolCall">;

/** The largest turn or item sent inline, as UTF-8 of its JSON. */
export const INLINE_LIMIT = 64 * 1024;
/**
 * A tool call's `input` (as JSON) or `output` over this many bytes moves to
 * `inputRef` / `outputRef` even when the item would fit inline: a history
 * page of fifty turns stays light, and a client fetches a big output only
 * when it shows it.
 */
export const FIELD_LIMIT = 16 * 1024;
/** The most a history or list response may take, envelope included. */
export const MAX_RESPONSE_BYTES = 1024 * 1024;
/**
 * Left for what surrounds a page's entries in a plain page response: the
 * echoed request id, `{"id":..,"result":{"turns":[..],"nextCursor":".."}}`
 * and a cursor of a few hundred bytes. 16 KiB holds that with room to spare;
 * a response with more beside the page (thread/resume's thread, queue and
 * UI) takes its budget from `responseBudget` instead.
 */
export const ENVELOPE_RESERVE = 16 * 1024;
export const PAGE_BUDGET = MAX_RESPONSE_BYTES - ENVELOPE_RESERVE;

// Every id the store issues has this length, so a placeholder measures a reference exactly.
const PLACEHOLDER: PayloadRef = { id: "0".repeat(32), bytes: 0 };

export function jsonBytes(value: unknown): number {
  const text = JSON.stringify(value);
  return text === undefined ? 0 : Buffer.byteLength(text, "utf8");
}

/** The page budget left beside everything else a response carries (all its fields but the page). */
export function responseBudget(otherFields: Record<string, unknown>): number {
  return MAX_RESPONSE_BYTES - ENVELOPE_RESERVE - jsonBytes(otherFields);
}

function isInline(item: WireItem): item is Item {
  return !("payloadRef" in item);
}

/**
 * An item as it may travel: a tool call's large input or output moves to
 * its own reference, and an item still over INLINE_LIMIT travels whole as
 * `{id, type, index?, payloadRef}`, its payload the complete item (every
 * field inline) as JSON. Whether the whole item goes is measured before
 * anything is stored, so a value is never spooled twice.
 */
export function itemForWire(item: WireItem, store: PayloadSink): WireItem {
  if (!isInline(item)) return item;
  if (item.type !== "toolCall") return jsonBytes(item) > INLINE_LIMIT ? wholeItemReference(item, store) : item;
  const moves = largeFields(item);
  const slim = slimmed(item, moves, () => PLACEHOLDER);
  if (jsonBytes(slim) > INLINE_LIMIT) return wholeItemReference(item, store);
  if (moves.input === undefined && moves.output === undefined) return item;
  return slimmed(item, moves, (value) => store.put(value));
}

interface Moves {
  input?: string;
  output?: string;
}

function largeFields(item: ToolCall): Moves {
  const moves: Moves = {};
  const input = item.input === undefined ? undefined : JSON.stringify(item.input);
  if (input !== undefined && overFieldLimit(input)) moves.input = input;
  if (item.output !== undefined && overFieldLimit(item.output)) moves.output = item.output;
  return moves;
}

/** Whether text is over FIELD_LIMIT as UTF-8 (see overBytes). */
const overFieldLimit = (text: string): boolean => overBytes(FIELD_LIMIT, [text]);

function slimmed(item: ToolCall, moves: Moves, put: (value: string) => PayloadRef): ToolCall {
  if (moves.input === undefined && moves.output === undefined) return item;
  const { input, output, ...rest } = item;
  return {
    ...rest,
    ...(moves.input === undefined ? (input === undefined ? {} : { input }) : { inputRef: put(moves.input) }),
    ...(moves.output === undefined ? (output === undefined ? {} : { output }) : { outputRef: put(moves.output) }),
  };
}

function wholeItemReference(item: Item, store: PayloadSink): ItemReference {
  return wholeItemReferenceOf(item, JSON.stringify(item), store);
}

function wholeItemReferenceOf(item: Item, json: string, store: PayloadSink): ItemReference {
  const payloadRef = store.put(json);
  return { id: item.id, type: item.type, ...(item.index === undefined ? {} : { index: item.index }), payloadRef };
}

/** An item's wire form and the JSON text of that form, serialized once. */
interface Piece {
  readonly wire: WireItem;
  readonly json: string;
}

/**
 * What one running turn's resumes share: each settled item's wire form and
 * JSON (a completed item never changes, so it is measured and serialized
 * once, not on every resume), and the turn's last payload, handed out again
 * while nothing in the turn changed. Owned by the turn's run; gone with it.
 */
export class TurnWireCache {
  readonly pieces = new WeakMap<Item, Piece>();
  last: { readonly head: string; readonly pieces: readonly Piece[]; readonly ref: PayloadRef } | undefined;

  /**
   * An item that just completed, serialized now while the turn runs: the
   * first resume of a long turn then joins pieces rather than serializing
   * thousands of items at once. Items that would travel with a reference are
   * left to the resume, which asks the store.
   */
  remember(item: Item): void {
    if (item.completedAt === undefined || this.pieces.has(item)) return;
    if (item.type === "toolCall") {
      const moves = largeFields(item);
      if (moves.input !== undefined || moves.output !== undefined) return;
    }
    const json = JSON.stringify(item);
    if (!overInlineLimit([json])) this.pieces.set(item, { wire: item, json });
  }
}

/**
 * The piece of one item. Only a completed item that travels inline as it is
 * (no field moved to a reference, whose lifetime the store decides) is kept
 * in the cache; everything else is worked out again each time.
 */
function pieceOf(item: WireItem, store: PayloadSink, cache: TurnWireCache | undefined): Piece {
  if (!isInline(item)) return measured(item);
  const kept = cache?.pieces.get(item);
  if (kept) return kept;
  if (item.type === "toolCall") {
    const moves = largeFields(item);
    if (moves.input !== undefined || moves.output !== undefined) return measured(itemForWire(item, store));
  }
  const json = JSON.stringify(item);
  if (overInlineLimit([json])) return measured(wholeItemReferenceOf(item, json, store));
  const piece = { wire: item, json };
  if (cache && item.completedAt !== undefined) cache.pieces.set(item, piece);
  return piece;
}

function measured(wire: WireItem): Piece {
  return { wire, json: JSON.stringify(wire) };
}

/**
 * Whether text (JSON of an item, or pieces of a turn's) is over `limit`
 * bytes as UTF-8. A UTF-16 unit is 1 to 3 bytes, so text of up to a third
 * of the limit in units fits and text over the limit in units does not,
 * whatever they hold: only text in between is measured byte by byte, and
 * thousands of small items never are.
 */
function overBytes(limit: number, ...groups: ReadonlyArray<readonly string[]>): boolean {
  let units = 0;
  for (const parts of groups) for (const part of parts) units += part.length;
  if (units * 3 <= limit) return false;
  if (units > limit) return true;
  let bytes = 0;
  for (const parts of groups) for (const part of parts) bytes += Buffer.byteLength(part, "utf8");
  return bytes > limit;
}

/** Whether text is over INLINE_LIMIT as UTF-8 (see overBytes). */
const overInlineLimit = (...groups: ReadonlyArray<readonly string[]>): boolean => overBytes(INLINE_LIMIT, ...groups);

function samePieces(a: readonly Piece[], b: readonly Piece[]): boolean {
  if (a.length !== b.length) return false;
  // Settled items are the same pieces; an item still in progress is a new piece each time, equal while it did not change.
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i] && a[i]!.json !== b[i]!.json) return false;
  return true;
}

/**
 * A turn as it may travel: its items through itemForWire, then, if the turn
 * is still over INLINE_LIMIT, its summary (`id`, `status`, times, `error`,
 * `files`) with `payloadRef` in place of `items`. The payload is the turn
 * with its wire items, so it may hold item references of its own (a turn of
 * many huge outputs never becomes one giant string). `files` is left out of
 * the summary too when it alone would overflow; the payload keeps it.
 *
 * Each item is serialized once: the turn's size is the sum of its items'
 * and the payload is their JSON joined, so the cost follows the turn's
 * length, not a multiple of it. With a `cache` (a running turn), settled
 * items are not serialized again and an unchanged turn keeps its payload.
 */
export function turnForWire(turn: WireTurn, store: PayloadSink, cache?: TurnWireCache): WireTurn {
  return wireTurn(turn, store, cache).wire;
}

/**
 * turnForWire, and whether the turn's payload holds references of its own
 * (items or fields moved out): a referenced turn without them stays whole
 * for as long as its one reference lives, so a later read may reuse it.
 */
export function turnForWireWhole(turn: WireTurn, store: PayloadSink): { wire: WireTurn; selfContained: boolean } {
  return wireTurn(turn, store, undefined);
}

function wireTurn(turn: WireTurn, store: PayloadSink, cache: TurnWireCache | undefined): { wire: WireTurn; selfContained: boolean } {
  if (turn.payloadRef) return { wire: turn, selfContained: false };
  if (turn.items === undefined) {
    if (jsonBytes(turn) <= INLINE_LIMIT) return { wire: turn, selfContained: true };
    return { wire: { ...referenceSummary(turn), payloadRef: store.put(JSON.stringify(turn)) }, selfContained: true };
  }
  const { items, ...rest } = turn;
  const pieces = items.map((item) => pieceOf(item, store, cache));
  let selfContained = true;
  for (let i = 0; i < pieces.length && selfContained; i++) selfContained = pieces[i]!.wire === items[i] && isInline(items[i]!);
  // The turn with no items, `items` last: the payload is this text with the items' JSON inside the brackets.
  const head = JSON.stringify({ ...rest, items: [] });
  const json: string[] = new Array<string>(pieces.length);
  for (let i = 0; i < pieces.length; i++) json[i] = pieces[i]!.json;
  const commas = ",".repeat(Math.max(0, pieces.length - 1));
  if (!overInlineLimit([head, commas], json)) return { wire: { ...rest, items: pieces.map((piece) => piece.wire) }, selfContained };
  const summary = referenceSummary(turn);
  const last = cache?.last;
  if (last && last.head === head && samePieces(last.pieces, pieces) && store.renew?.(last.ref))
    return { wire: { ...summary, payloadRef: last.ref }, selfContained };
  const ref = store.put(`${head.slice(0, -2)}${json.join(",")}]}`);
  if (cache) cache.last = { head, pieces, ref };
  return { wire: { ...summary, payloadRef: ref }, selfContained };
}

/** The fields a referenced turn keeps beside `payloadRef`: all but `items`, and `files` only while it fits. */
function referenceSummary(turn: WireTurn): WireTurn {
  const { items: _items, files, ...summary } = turn;
  const withFiles = files === undefined ? summary : { ...summary, files };
  return jsonBytes({ ...withFiles, payloadRef: PLACEHOLDER }) <= INLINE_LIMIT ? withFiles : summary;
}

/**
 * Cuts a history page (turns oldest first) to fit `maxBytes` as a JSON
 * array, keeping the newest turns: pages run newest first, so the turns cut
 * are the ones the next page would show anyway. `omitted` counts the oldest
 * turns cut from the front; the caller anchors its cursor before the first
 * turn kept. The newest turn always stays, so a page always moves on; after
 * turnForWire no turn exceeds INLINE_LIMIT, well inside any page budget.
 */
export function boundPage<T>(turns: readonly T[], maxBytes: number = PAGE_BUDGET): { turns: T[]; omitted: number } {
  let used = 2;
  let start = turns.length;
  while (start > 0) {
    const cost = jsonBytes(turns[start - 1]) + (start === turns.length ? 0 : 1);
    if (start < turns.length && used + cost > maxBytes) break;
    used += cost;
    start -= 1;
  }
  return { turns: turns.slice(start), omitted: start };
}

/**
 * Cuts a listing (entries in the order shown) to fit `maxBytes` as a JSON
 * array, keeping the first entries; the next page starts at
 * `entries.length`. The first entry always stays.
 */
export function boundList<T>(entries: readonly T[], maxBytes: number = PAGE_BUDGET): { entries: T[]; omitted: number } {
  let used = 2;
  let end = 0;
  while (end < entries.length) {
    const cost = jsonBytes(entries[end]) + (end === 0 ? 0 : 1);
    if (end > 0 && used + cost > maxBytes) break;
    used += cost;
    end += 1;
  }
  return { entries: entries.slice(0, end), omitted: entries.length - end };
}
