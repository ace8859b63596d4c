// worktree.json: the record of one managed worktree, beside its folder.
import { type Static, Type } from "typebox";

const IsoTime = Type.String({ description: "ISO 8601 time." });

/** A record this code wrote; a file that does not match is not a managed worktree. Unknown keys are let be. */
export const WorktreeRecord = Type.Object({
  path: Type.String({ description: "The worktree's folder: `<root>/<bucket>/<repository folder name>`." }),
  projectCwd: Type.String({ description: "The project folder its threads belong to: their transcripts' header cwd." }),
  checkoutRoot: Type.String({ description: "The root of the checkout it was made from." }),
  repoRoot: Type.String({ description: "The repository's shared git folder (objects, refs): what identifies the project's repository." }),
  baseRef: Type.String({ description: 'The base as it was asked for ("HEAD" unless a baseRef was given).' }),
  baseSha: Type.String({ description: "The commit that base named." }),
  createdAt: IsoTime,
  lastUsedAt: Type.String({ description: "ISO 8601: the last time a thread loaded or started a turn there. Pruning deletes the oldest first." }),
  threadIds: Type.Array(Type.String(), { description: "Every thread that ran there, oldest first." }),
  environment: Type.Optional(Type.String({ description: "The environment whose cleanup script runs before deletion." })),
  deleted: Type.Boolean({ description: "The folder and its registration are gone." }),
  snapshot: Type.Optional(Type.String({ description: "The ref of the snapshot taken before deletion." })),
  head: Type.Optional(Type.String({ description: "The worktree's HEAD when the snapshot was taken." })),
});
export type WorktreeRecord = Static<typeof WorktreeRecord>;
