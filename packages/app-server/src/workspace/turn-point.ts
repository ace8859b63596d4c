import type { TurnTrees } from "@knightcode/repo/git/diff/snapshot";
import type { SessionEntry, TurnFilesEntry } from "@knightcode/store/session/format";

/** A turn of a branch and what follows it: where a rewind or a fork at that turn starts. */
export interface TurnPoint {
  /** The entry before the turn's start, where a branch cut there goes on (null: the turn was the branch's root). */
  parentId: string | null;
  /** The turn and every later turn of the branch, oldest first, each with its snapshots when it has them. */
  turns: Array<{ turnId: string; trees?: TurnTrees }>;
}

/** Finds turn `turnId` on a branch (root first); undefined when it is no turn of it. */
export function turnPoint(branch: readonly SessionEntry[], turnId: string): TurnPoint | undefined {
  const start = branch.findIndex((entry) => entry.type === "turn_start" && entry.id === turnId);
  if (start === -1) return undefined;
  const turns: TurnPoint["turns"] = [];
  const byTurn = new Map<string, TurnPoint["turns"][number]>();
  for (const entry of branch.slice(start)) {
    if (entry.type === "turn_start") {
      const turn = { turnId: entry.id };
      turns.push(turn);
      byTurn.set(entry.id, turn);
    } else if (entry.type === "turn_files") {
      const { turnId: of, before, after } = entry as TurnFilesEntry;
      const turn = byTurn.get(of);
      if (turn) turn.trees = { turnId: of, before, after };
    }
  }
  return { parentId: branch[start]!.parentId, turns };
}

/** The snapshots of the turns a code rewind undoes, the first turn's first; a first turn without any is said plainly. */
export function undoneTrees(point: TurnPoint, turnId: string): TurnTrees[] | string {
  if (!point.turns[0]?.trees) {
    return `turn ${turnId} has no snapshot of the working tree (it ran outside git, took none, or its snapshot failed): its code cannot be rewound`;
  }
  return point.turns.flatMap((turn) => (turn.trees ? [turn.trees] : []));
}
