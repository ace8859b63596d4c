import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { GitContext } from "./context.js";

/**
 * Runs `work` with a private copy of the working tree's index (an empty
 * one when the repository has none yet), for commands that would write
 * the index: `write-tree`, an `add` whose result is only looked at. The
 * user's index is never opened for writing, so nothing a client or an
 * editor does with it meanwhile is lost or blocked.
 */
export async function withIndexCopy<T>(ctx: GitContext, work: (indexFile: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), "knightcode-index-"));
  const indexFile = join(dir, "index");
  try {
    try {
      await copyFile(join(ctx.repo.gitDir, "index"), indexFile);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    return await work(indexFile);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
