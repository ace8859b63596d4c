import type { Turn } from "@knightcode/app-server-protocol";
import type { PayloadSink } from "../payloads/store.js";

/** How many referenced turns are kept; each is a summary of a few hundred bytes. */
const KEPT_TURNS = 64;

/**
 * Large saved turns as they last travelled: the summary with its one
 * `payloadRef`, by thread and content key (history/turns.ts). A saved turn
 * never changes, so reading it again (a client paging back and forth, a
 * second window) hands out the same reference instead of rebuilding its
 * thousands of items and spooling them again. Only turns whose payload holds
 * no references of its own are kept: one live reference then keeps all of
 * it readable. The least recently used go first.
 */
export class SavedTurnCache {
  private readonly turns = new Map<string, Omit<Turn, "items">>();

  /** The kept turn, if its reference is still held (it is renewed, as a put would). */
  get(threadId: string, key: string, store: PayloadSink): Omit<Turn, "items"> | undefined {
    const name = `${threadId}:${key}`;
    const turn = this.turns.get(name);
    if (turn === undefined) return undefined;
    this.turns.delete(name);
    if (turn.payloadRef === undefined || store.renew?.(turn.payloadRef) !== true) return undefined;
    this.turns.set(name, turn);
    return turn;
  }

  /**
   * Whether a turn with this start and end is kept (whatever its files
   * entry and length): a page read may then pass over its body, and build
   * it again only if the kept turn turns out not to fit (see BodylessTurn).
   */
  holds(threadId: string, turnId: string, endId: string): boolean {
    const prefix = `${threadId}:${turnId}/${endId}/`;
    for (const name of this.turns.keys()) if (name.startsWith(prefix)) return true;
    return false;
  }

  set(threadId: string, key: string, turn: Turn): void {
    if (turn.payloadRef === undefined || turn.items !== undefined) return;
    const name = `${threadId}:${key}`;
    this.turns.delete(name);
    this.turns.set(name, turn);
    for (const oldest of this.turns.keys()) {
      if (this.turns.size <= KEPT_TURNS) break;
      this.turns.delete(oldest);
    }
  }
}
