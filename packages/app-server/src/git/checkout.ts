import { isInside } from "@knightcode/system/fs/real-target";
import type { LoadedThread } from "../threads/loaded-thread.js";

/**
 * Runs `work` while every loaded thread whose folder lies in the working
 * tree `root` (links resolved) is held: a turn running in any of them
 * refuses it with turnInProgress, and no turn starts in any of them (nor a
 * tool runs) until it is done. The threads are taken in the order of their
 * ids, so two such changes of one checkout never hold each other up half way.
 */
export async function exclusiveInCheckout<T>(
  threads: Iterable<LoadedThread>,
  root: string,
  work: () => Promise<T>,
  /** A thread the caller holds already. */
  except?: LoadedThread,
): Promise<T> {
  const inside = [...threads].filter((thread) => thread !== except && isInside(root, thread.cwd)).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const hold = (index: number): Promise<T> => {
    const thread = inside[index];
    return thread ? thread.turns.exclusive(() => hold(index + 1)) : work();
  };
  return hold(0);
}
