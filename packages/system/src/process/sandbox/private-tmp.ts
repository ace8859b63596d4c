import { chmod, mkdtemp, readdir, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A thread's private temporary folders are named `<prefix><server pid>-XXXXXX`, so a sweep can tell a dead server's. */
export const SANDBOX_TMP_PREFIX = "knightcode-sandbox-";

/**
 * A new private temporary folder for one thread's sandboxed commands,
 * mode 0700 (as mkdtemp makes it), as a real path: the sandbox mounts it
 * as `/tmp`, so a command never shares /tmp with other users or threads.
 */
export async function makePrivateTmp(root = tmpdir()): Promise<string> {
  return realpath(await mkdtemp(join(root, `${SANDBOX_TMP_PREFIX}${process.pid}-`)));
}

/**
 * Removes a private temporary folder and everything in it, also what a
 * command made unwritable (`chmod -w` on a folder would otherwise make the
 * removal fail half-way).
 */
export async function removePrivateTmp(path: string): Promise<void> {
  try {
    await rm(path, { recursive: true, force: true });
  } catch {
    await makeWritable(path);
    await rm(path, { recursive: true, force: true });
  }
}

async function makeWritable(folder: string): Promise<void> {
  await chmod(folder, 0o700).catch(() => undefined);
  const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) if (entry.isDirectory()) await makeWritable(join(folder, entry.name));
}
