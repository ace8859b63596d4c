import { copyFile, mkdtemp, rm, stat, utimes } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { GitContext } from "./context.js";

/**
 * Runs `work` with a private index file in a temporary folder: a copy of
 * the index in `gitDir` (an empty index when there is none, or when
 * `gitDir` is undefined), for commands that would write the index:
 * `write-tree`, an `add` whose result is only looked at. The user's index
 * is never opened for writing, so nothing a client or an editor does with
 * it meanwhile is lost or blocked. The copy keeps the index's times: git
 * trusts an entry's cached stat only for files older than the index
 * ("racy git"), and a copy with a fresh time would make a file rewritten
 * in the same second as the index look unchanged. The copy is of the bytes
 * (a missing index stays missing), so it says what the real one says.
 */
export async function withIndexAt<T>(gitDir: string | undefined, work: (indexFile: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), "knightcode-index-"));
  const indexFile = join(dir, "index");
  try {
    if (gitDir !== undefined) {
      try {
        const real = join(gitDir, "index");
        const before = await stat(real);
        await copyFile(real, indexFile);
        // A millisecond early: git then compares the contents of a few more files, never fewer.
        await utimes(indexFile, before.atime, new Date(before.mtimeMs - 1));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      }
    }
    return await work(indexFile);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `withIndexAt` for the working tree of `ctx`. */
export function withIndexCopy<T>(ctx: GitContext, work: (indexFile: string) => Promise<T>): Promise<T> {
  return withIndexAt(ctx.repo.gitDir, work);
}
