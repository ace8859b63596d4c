import { GitConflictError } from "./errors.js";
import { withIndexCopy } from "./ops/index-copy.js";
import { noUserCodeConfig, runGit } from "./run.js";
import type { RepoInfo } from "./repo.js";

/** A working tree's uncommitted changes against its HEAD, as one patch git can apply anywhere. */
export interface CapturedChanges {
  /** The HEAD the patch applies to. */
  head: string;
  /** A binary patch from HEAD to the working tree: staged and unstaged edits, untracked files (ignored ones not). */
  patch: Buffer;
  /** Every path the patch touches, relative to the root. */
  paths: string[];
  /** The paths that were untracked files. */
  untracked: string[];
}

/**
 * The working tree's uncommitted changes as a binary patch against HEAD,
 * read through a private index copy: nothing of the repository is written
 * but objects. No hook or filter runs (what the patch carries is the files'
 * bytes as they are on disk).
 */
export async function captureChanges(repo: RepoInfo, env?: NodeJS.ProcessEnv): Promise<CapturedChanges> {
  const cwd = repo.root;
  const config = await noUserCodeConfig(cwd, env);
  const head = (await runGit(["rev-parse", "--verify", "HEAD^{commit}"], { cwd, env })).stdout.toString("utf8").trim();
  return withIndexCopy({ repo, ...(env ? { env } : {}) }, async (indexFile) => {
    const extraEnv = { GIT_INDEX_FILE: indexFile };
    const untracked = splitZ((await runGit(["ls-files", "--others", "--exclude-standard", "-z"], { cwd, env, extraEnv, config })).stdout);
    await runGit(["add", "-A", "--", "."], { cwd, env, extraEnv, config, readOnly: false });
    const diffArgs = ["diff", "--cached", "--no-ext-diff", "--no-textconv", "--no-color", "--no-renames", "--full-index"];
    const patch = (await runGit([...diffArgs, "--binary", "HEAD"], { cwd, env, extraEnv, config })).stdout;
    const paths = splitZ((await runGit([...diffArgs, "--name-only", "-z", "HEAD"], { cwd, env, extraEnv, config })).stdout);
    return { head, patch, paths, untracked };
  });
}

/**
 * Whether the working tree has no uncommitted change: nothing staged,
 * modified, deleted or untracked (ignored files do not count). Reads only.
 */
export async function changedPaths(root: string, env?: NodeJS.ProcessEnv): Promise<string[]> {
  const out = (await runGit(["status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames"], { cwd: root, env })).stdout;
  const paths: string[] = [];
  for (const record of splitZ(out)) if (record.length > 3) paths.push(record.slice(3));
  return paths;
}

/**
 * Applies captured changes to a working tree's files (the index is left as
 * it is, so they show as unstaged edits and untracked files). Checked
 * whole first: a patch that does not apply changes nothing and answers
 * gitConflict `patchFailed` with git's words.
 */
export async function applyChanges(root: string, patch: Buffer, env?: NodeJS.ProcessEnv): Promise<void> {
  if (patch.length === 0) return;
  const config = await noUserCodeConfig(root, env);
  const args = ["apply", "--binary", "--whitespace=nowarn"];
  try {
    await runGit([...args, "--check", "-"], { cwd: root, env, config, input: patch });
  } catch (error) {
    throw new GitConflictError("patchFailed", "the changes do not apply here", { output: (error as { stderr?: string }).stderr ?? String(error) });
  }
  await runGit([...args, "-"], { cwd: root, env, config, input: patch, readOnly: false });
}

/**
 * Removes captured changes from the working tree they came from: tracked
 * files go back to HEAD (index too) and the untracked files that were
 * captured are deleted; ignored files and anything else stay. No hook or
 * filter runs.
 */
export async function dropChanges(root: string, changes: Pick<CapturedChanges, "untracked">, env?: NodeJS.ProcessEnv): Promise<void> {
  const config = await noUserCodeConfig(root, env);
  await runGit(["reset", "-q", "--hard", "HEAD"], { cwd: root, env, config, readOnly: false });
  for (let at = 0; at < changes.untracked.length; at += 500) {
    const batch = changes.untracked.slice(at, at + 500).map((path) => `:(literal)${path}`);
    await runGit(["clean", "-q", "-f", "--", ...batch], { cwd: root, env, config, readOnly: false });
  }
}

function splitZ(out: Buffer): string[] {
  return out
    .toString("utf8")
    .split("\0")
    .filter((part) => part !== "");
}
