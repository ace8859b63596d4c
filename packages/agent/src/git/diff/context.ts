import { mkdtemp, open, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RepoInfo } from "../repo.js";
import { runGit, type GitOptions, type GitResult } from "../run.js";

/** The repository a diff works in, and what every git command of it runs with. */
export interface GitContext {
  repo: RepoInfo;
  /** The server's environment; the process's by default. */
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}

/**
 * Configuration that keeps git's patch output in the one shape the reader
 * knows, whatever the user configured: `a/` and `b/` prefixes, paths from
 * the root, quoted the same way, an empty context line as a space.
 */
const DIFF_CONFIG: readonly (readonly [string, string])[] = [
  ["core.quotePath", "true"],
  ["diff.noprefix", "false"],
  ["diff.mnemonicPrefix", "false"],
  ["diff.relative", "false"],
  ["diff.suppressBlankEmpty", "false"],
  ["color.ui", "false"],
];

/** Options for one command at the root of the working tree; `index` points git at an index copy. */
export function gitAt(ctx: GitContext, extra: Partial<GitOptions> & { index?: string } = {}): GitOptions {
  const { index, extraEnv, ...rest } = extra;
  return {
    cwd: ctx.repo.root,
    config: DIFF_CONFIG,
    ...(ctx.env ? { env: ctx.env } : {}),
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    extraEnv: { ...(index ? { GIT_INDEX_FILE: index } : {}), ...extraEnv },
    ...rest,
  };
}

export function git(ctx: GitContext, args: readonly string[], extra: Partial<GitOptions> & { index?: string } = {}): Promise<GitResult> {
  return runGit(args, gitAt(ctx, extra));
}

/**
 * Copies the index with its modification time, a millisecond early. Git
 * trusts an entry's stat data only when the file changed before the index
 * was written ("racy git"): a copy stamped now would make a file edited in
 * the same second as the index look clean. An earlier stamp only makes git
 * compare more contents.
 */
async function copyIndex(from: string, to: string): Promise<void> {
  let handle;
  try {
    handle = await open(from, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  try {
    const stat = await handle.stat({ bigint: true });
    await writeFile(to, await handle.readFile());
    const seconds = (ns: bigint) => Number(ns / 1_000_000n) / 1000 - 0.001;
    await utimes(to, seconds(stat.atimeNs), seconds(stat.mtimeNs));
  } finally {
    await handle.close();
  }
}

/**
 * Runs `work` on a private copy of the index, removed afterwards. Git
 * refreshes a stale index even on `git diff` and writes it back when it
 * can; on the copy that costs the user nothing, and a read never takes
 * `index.lock`. The copy is of the bytes (a missing index stays missing),
 * so it says what the real one says.
 */
export async function withIndexCopy<T>(ctx: GitContext, work: (index: string) => Promise<T>): Promise<T> {
  const folder = await mkdtemp(join(tmpdir(), "kc-index-"));
  const index = join(folder, "index");
  try {
    await copyIndex(join(ctx.repo.gitDir, "index"), index);
    return await work(index);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/**
 * The untracked files git does not ignore, as paths from the root. A
 * nested repository (listed as a folder) is left out: it is not a file
 * to show, add or snapshot.
 */
export async function listUntracked(ctx: GitContext): Promise<Buffer[]> {
  const { stdout } = await git(ctx, ["ls-files", "--others", "--exclude-standard", "-z"]);
  const paths: Buffer[] = [];
  let at = 0;
  for (let end = stdout.indexOf(0, at); end !== -1; at = end + 1, end = stdout.indexOf(0, at)) {
    if (end > at && stdout[end - 1] !== 0x2f) paths.push(stdout.subarray(at, end));
  }
  return paths;
}

/** NUL-separated paths for `--pathspec-from-file=- --pathspec-file-nul`. */
export function pathspecInput(paths: readonly Buffer[]): Buffer {
  return Buffer.concat(paths.flatMap((path) => [path, Buffer.from([0])]));
}

/** Marks untracked files intent-to-add in the index copy, so diffs against the working tree show them as added. */
export async function addIntentToAdd(ctx: GitContext, index: string, paths: readonly Buffer[]): Promise<void> {
  if (paths.length === 0) return;
  await git(ctx, ["add", "--intent-to-add", "--pathspec-from-file=-", "--pathspec-file-nul"], {
    index,
    input: pathspecInput(paths),
    readOnly: false,
    extraEnv: { GIT_LITERAL_PATHSPECS: "1" },
  });
}
