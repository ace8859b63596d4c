// Managed worktrees.
import { type Static, Type } from "typebox";
import { Closed } from "./common.js";

const IsoTime = Type.String({ description: "ISO 8601 time." });

export const ManagedWorktree = Type.Object(
  {
    path: Type.String({ description: "The worktree's folder: <worktrees.root>/<4 hex>/<repository folder name>." }),
    projectCwd: Type.String({ description: "The project folder its threads belong to." }),
    head: Type.Optional(Type.String({ description: "Its HEAD commit; for a deleted worktree, the HEAD its snapshot holds." })),
    branch: Type.Optional(Type.String({ description: "The branch checked out there, when it is not detached." })),
    threadIds: Type.Array(Type.String(), { description: "Every thread that ran there, oldest first." }),
    lastUsedAt: IsoTime,
    deleted: Type.Boolean({ description: "Deleted after a snapshot: thread/worktree/restore rebuilds it." }),
  },
  { ...Closed, $id: "ManagedWorktree", description: "A git worktree the server made for a thread." },
);
export type ManagedWorktree = Static<typeof ManagedWorktree>;
