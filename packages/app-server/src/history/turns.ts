import type { AssistantMessage, ToolResultMessage } from "@mariozechner/pi-ai";
import { boundErrorMessage } from "@knightcode/agent/run/error-kind";
import { isBodyless } from "@knightcode/store/session/read-page";
import { isKnownEntry, type KnownEntry, type SessionEntry, type TurnEndEntry } from "@knightcode/store/session/format";
import type { Item, ItemOf, Turn, TurnErrorKind } from "@knightcode/app-server-protocol";
import { extensionItem, ordinalId, toolCallOutcome, userItem } from "../turns/item-shapes.js";
import { findingItem, findingOfCall } from "../turns/finding-item.js";

/** A saved turn with its items inline, before references are made for the wire. */
export type HistoryTurn = Omit<Turn, "items"> & { items?: Item[] };

/** Every kind the protocol knows; the compiler checks the list is whole. */
const ERROR_KINDS = { auth: true, rateLimit: true, contextOverflow: true, network: true, provider: true, other: true } satisfies Record<TurnErrorKind, true>;

/**
 * Rebuilds one turn's items from its saved entries with the numbering the
 * live stream used (turns/live-items.ts): non-tool items take the next
 * ordinal and every top-level item the next index, in the order they
 * started. A failed reply's parts consumed their numbers live before being
 * withdrawn, so they consume them here too, unseen.
 */
class TurnBuilder {
  private ordinal = 0;
  private index = 0;
  readonly items: Item[] = [];
  private readonly results = new Map<string, ToolResultMessage>();
  private readonly declined = new Set<string>();

  constructor(
    private readonly turnId: string,
    entries: readonly KnownEntry[],
  ) {
    for (const entry of entries) {
      if (entry.type === "message" && entry.message.role === "toolResult") this.results.set(entry.message.toolCallId, entry.message);
      // A cancel nobody was there to give is no decline: the call reads as failed, as its result says.
      if (entry.type === "approval" && (entry.decision === "decline" || entry.decision === "cancel") && entry.unattended !== true)
        this.declined.add(entry.toolCallId);
      if (entry.type === "classification" && entry.confirmed === false && entry.unattended !== true) this.declined.add(entry.toolCallId);
    }
  }

  private nextId(): string {
    return ordinalId(this.turnId, this.ordinal++);
  }

  add(entry: KnownEntry): void {
    switch (entry.type) {
      case "message":
        if (entry.message.role === "user") this.items.push(userItem(this.nextId(), this.index++, entry.message, entry.timestamp));
        else if (entry.message.role === "assistant") this.addAssistant(entry.message, entry.timestamp);
        break;
      case "custom_message":
        if (!entry.display) break;
        this.items.push(extensionItem(this.nextId(), this.index++, { role: "custom", ...entry }, entry.timestamp));
        break;
      case "compaction":
        this.items.push({ id: this.nextId(), type: "compaction", index: this.index++, completedAt: entry.timestamp, summary: entry.summary });
        break;
      default:
        break;
    }
  }

  private addAssistant(message: AssistantMessage, savedAt: number): void {
    const failed = message.stopReason === "error";
    const seen = new Set<string>();
    for (const block of message.content) {
      const type = block.type === "thinking" ? "reasoning" : block.type === "text" ? "agentMessage" : undefined;
      if (!type || seen.has(type)) continue;
      seen.add(type);
      const id = this.nextId();
      const index = this.index++;
      if (failed) continue;
      const text = message.content
        .flatMap((b) => (type === "reasoning" ? (b.type === "thinking" ? [b.thinking] : []) : b.type === "text" ? [b.text] : []))
        .join("\n");
      const item: ItemOf<"reasoning" | "agentMessage"> = { id, type, index, startedAt: message.timestamp, completedAt: savedAt, text };
      this.items.push(item);
    }
    if (failed) return;
    for (const block of message.content) {
      if (block.type !== "toolCall") continue;
      const result = this.results.get(block.id);
      if (!result) continue;
      const finding = findingOfCall(block.name, result);
      if (finding) {
        this.items.push(findingItem(block.id, this.index++, { startedAt: savedAt, completedAt: result.timestamp }, finding));
        continue;
      }
      this.items.push({
        id: block.id,
        type: "toolCall",
        index: this.index++,
        startedAt: savedAt,
        completedAt: result.timestamp,
        name: block.name,
        input: block.arguments,
        ...toolCallOutcome(result, result.isError, this.declined.has(block.id)),
      });
    }
  }
}

/** A saved turn error as the wire shows it: bounded, and an unknown kind (a newer writer's) reads as `other`. */
function turnError(error: NonNullable<TurnEndEntry["error"]>): NonNullable<Turn["error"]> {
  const kind = Object.hasOwn(ERROR_KINDS, error.kind) ? (error.kind as TurnErrorKind) : "other";
  return { message: boundErrorMessage(error.message), kind };
}

/** What turnsFromEntries may be asked beyond grouping. */
export interface TurnsOptions {
  /** False: turns without their items (a summary). */
  withItems?: boolean;
  /** Leaves that turn out (thread/resume's running turn, sent apart). */
  skipTurnId?: string;
  /**
   * A turn already made for the wire (a payload reference, no items), by its
   * content key (see `keys`): used as it is, its items never built.
   */
  reuse?: (key: string) => Omit<Turn, "items"> | undefined;
  /** Filled with each ended turn built here and its content key. */
  keys?: Map<HistoryTurn, string>;
}

/**
 * A turn read by its entries' prefixes only (see readBranchPage's
 * skipTurnBody) had to be built after all: the kept turn it was read for
 * was gone or did not match. The caller reads the page again, whole.
 */
export class BodylessTurn extends Error {}

interface Group {
  turn: HistoryTurn;
  entries: KnownEntry[];
  /** Some entries are prefixes only: the turn can be reused, never built. */
  bodyless?: boolean;
  /**
   * Names the turn's content once it ended: the ids of its start, its end
   * and its files entry, and how many entries lie between. Appends never
   * change entries, so the same key is the same turn.
   */
  key?: string;
}

/**
 * Groups a stretch of a branch (oldest first) into turns: the entries from a
 * turn_start to its turn_end. A turn with no end entry reads as
 * interrupted, with no completion time. Entries outside any turn (model
 * changes, a name) belong to none; kinds a newer version wrote are skipped.
 * Items are built once the stretch is grouped, so a turn whose files entry
 * follows its end is known whole before any work is spent on it.
 */
export function turnsFromEntries(entries: readonly SessionEntry[], options: TurnsOptions = {}): HistoryTurn[] {
  const groups: Group[] = [];
  let open: Group | undefined;
  for (const entry of entries) {
    if (!isKnownEntry(entry)) continue;
    if (entry.type === "turn_start") {
      open = { turn: { id: entry.id, status: "interrupted", startedAt: entry.timestamp }, entries: [] };
      groups.push(open);
    } else if (entry.type === "turn_end" && open && entry.turnId === open.turn.id) {
      const turn = open.turn;
      turn.status = entry.status;
      turn.completedAt = entry.timestamp;
      if (entry.error && turn.status === "failed") turn.error = turnError(entry.error);
      if (Array.isArray(entry.files)) turn.files = entry.files;
      open.key = `${turn.id}/${entry.id}/${open.entries.length}`;
      open = undefined;
    } else if (entry.type === "turn_files" && !open) {
      // Written once the turn settled, after its end entry: its files belong to the turn it follows.
      const last = lastShown(groups, options.skipTurnId);
      if (last?.turn.id === entry.turnId) {
        last.turn.files = entry.files;
        if (last.key !== undefined) last.key += `/${entry.id}`;
      }
    } else if (open) {
      open.entries.push(entry);
      if (isBodyless(entry)) open.bodyless = true;
    }
  }
  const turns: HistoryTurn[] = [];
  for (const group of groups) {
    if (group.turn.id === options.skipTurnId) continue;
    const reused = group.key === undefined ? undefined : options.reuse?.(group.key);
    if (reused) {
      turns.push(reused);
      continue;
    }
    if (group.bodyless) throw new BodylessTurn(`turn ${group.turn.id} was read without its body`);
    if (options.withItems !== false) {
      const builder = new TurnBuilder(group.turn.id, group.entries);
      for (const entry of group.entries) builder.add(entry);
      group.turn.items = builder.items;
    }
    if (group.key !== undefined) options.keys?.set(group.turn, group.key);
    turns.push(group.turn);
  }
  return turns;
}

/** The newest turn that is shown: the one a files entry after it belongs to. */
function lastShown(groups: readonly Group[], skipTurnId: string | undefined): Group | undefined {
  for (let i = groups.length - 1; i >= 0; i--) if (groups[i]!.turn.id !== skipTurnId) return groups[i];
  return undefined;
}
