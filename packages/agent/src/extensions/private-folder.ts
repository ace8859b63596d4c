import { randomBytes } from "node:crypto";
import type { Stats } from "node:fs";
import { chmod, lstat, mkdir, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";

/**
 * Why a folder may not hold code this server will run, or undefined when it
 * may: it must be a folder (not a link to one), ours, and writable by nobody
 * else. Anyone who can write there can put code in it.
 */
function unsafeBecause(stats: Stats, uid: number): string | undefined {
  if (stats.isSymbolicLink()) return "it is a symbolic link";
  if (!stats.isDirectory()) return "it is not a folder";
  if (stats.uid !== uid) return `it belongs to user ${stats.uid}`;
  if ((stats.mode & 0o022) !== 0) return `other users can write in it (mode ${(stats.mode & 0o777).toString(8).padStart(4, "0")})`;
  return undefined;
}

/**
 * Makes `folder` (and its parent) a place only this user can write, or says
 * why it cannot: missing folders are made with mode 0700; one that another
 * user owns or may write, or a link, is moved aside (then removed, as far as
 * we may) and made anew, since nothing it holds can be trusted. Answers the
 * folder, or undefined when it could not be made safe, with a warning for
 * each thing it did not find as it should be.
 *
 * Checked once: once both folders are ours and closed to others, nobody
 * else can change them or swap them. Where there are no user ids (Windows),
 * the folder is only made.
 */
export async function privateFolder(folder: string, warn: (message: string) => void): Promise<string | undefined> {
  const uid = process.getuid?.();
  await mkdir(dirname(dirname(folder)), { recursive: true, mode: 0o700 });
  if (uid === undefined) {
    await mkdir(folder, { recursive: true, mode: 0o700 });
    return folder;
  }
  for (const path of [dirname(folder), folder]) {
    if (!(await makePrivate(path, uid, warn))) return undefined;
  }
  return folder;
}

async function makePrivate(path: string, uid: number, warn: (message: string) => void): Promise<boolean> {
  await mkdir(path, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "EEXIST") throw error;
  });
  const why = unsafeBecause(await lstat(path), uid);
  if (why === undefined) {
    const stats = await lstat(path);
    // Ours and closed to writers: reading is all others had, and now they have not that either.
    if ((stats.mode & 0o077) !== 0) await chmod(path, 0o700);
    return true;
  }
  const aside = `${path}.untrusted-${randomBytes(4).toString("hex")}`;
  try {
    await rename(path, aside);
    await mkdir(path, { mode: 0o700 });
  } catch (error) {
    warn(
      `the extension compile cache ${path} is not safe to use (${why}) and cannot be replaced (${(error as Error).message}); extensions are compiled without a disk cache`,
    );
    return false;
  }
  const again = unsafeBecause(await lstat(path), uid);
  if (again !== undefined) {
    warn(`the extension compile cache ${path} cannot be made private (${again}); extensions are compiled without a disk cache`);
    return false;
  }
  warn(`the extension compile cache ${path} was not safe to use (${why}): it was moved to ${aside} to be removed, and a new private folder made in its place`);
  // Only links and entries are removed; nothing inside is followed or run.
  await rm(aside, { recursive: true, force: true }).catch(() => undefined);
  return true;
}
