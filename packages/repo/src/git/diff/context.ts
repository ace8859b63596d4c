import type { GitContext } from "../ops/context.js";
import { withIndexCopy } from "../ops/index-copy.js";
import { runGit, type GitOptions, type GitResult } from "../run.js";

export type { GitContext };

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

export { withIndexCopy };

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
