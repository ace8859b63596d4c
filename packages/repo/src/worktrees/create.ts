import { mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { GitCommandError } from "../git/errors.js";
import { discoverRepo, type RepoInfo } from "../git/repo.js";
import { gitText, noUserCodeConfig, runGit } from "../git/run.js";
import { WorktreeError } from "./errors.js";
import { carryOnto, contextFor, emptyTree, gitWrite, populate, stateTrees, type WorktreeGit, type StateTrees } from "./git-trees.js";
import { newBucket, existingRealPath } from "./layout.js";
import { isWithin } from "@knightcode/system/fs/real-target";
import { writeRecord, type StoredWorktree, type WorktreeRecord } from "./record.js";

export interface CreateWorktreeOptions {
  /** Where managed worktrees go (`worktreesRoot`). */
  root: string;
  /** The folder the thread starts from, inside the checkout the worktree is made from. */
  cwd: string;
  /** What the worktree starts from: a ref or a commit id; the checkout's HEAD by default. */
  baseRef?: string;
  /** Copy the checkout's uncommitted changes (staged, unstaged, untracked) along; the checkout keeps them. */
  carryLocalChanges?: boolean;
  /** A tree the worktree's files are instead (a turn's snapshot, for a fork at that turn); its index stays at the base. */
  files?: string;
  /** Its environment's name, kept in the record for the cleanup script. */
  environment?: string;
  /** The project folder the worktree's threads belong to; `cwd` by default. */
  projectCwd?: string;
  /** The first thread to run there, when already known. */
  threadIds?: string[];
  env?: NodeJS.ProcessEnv;
  now?: () => number;
}

export interface CreatedWorktree extends StoredWorktree {
  /** The folder in the worktree where `cwd` was in the checkout: where the thread runs. */
  cwd: string;
}

/** How many random buckets are tried before creation gives up. */
const BUCKET_ATTEMPTS = 64;

/**
 * Makes a managed worktree of the checkout around `cwd`: a detached HEAD
 * at the base under `<root>/<bucket>/<repository folder name>`, filled
 * without hooks or filters, and its record beside it. The checkout is only
 * read. Any failure removes what was made (folder, registration) and
 * throws: NotGitRepoError outside a working tree, WorktreeError
 * `invalidParams` (field `baseRef`) for a base that names no commit,
 * gitConflict `patchFailed` or `localChanges` for changes that cannot be
 * carried, WorktreeError `io` for a root that cannot be made.
 */
export async function createWorktree(options: CreateWorktreeOptions): Promise<CreatedWorktree> {
  const env = options.env;
  const repo = await discoverRepo(options.cwd, env);
  const git: WorktreeGit = { ...(env ? { env } : {}), config: await noUserCodeConfig(repo.root, env) };
  const baseRef = options.baseRef ?? "HEAD";
  const baseSha = await resolveCommit(repo.root, baseRef, git);
  const trees = options.files !== undefined ? { index: baseSha, work: options.files } : await startTrees(repo, baseSha, git, options.carryLocalChanges);
  const { bucketDir, cleanup } = makeBucket(options.root);
  const path = join(bucketDir, basename(repo.root));
  try {
    await gitWrite(["worktree", "add", "--detach", "--no-checkout", path, baseSha], repo.root, git);
    await populate(path, trees, git);
    const cwd = repo.prefix === "" ? path : join(path, ...repo.prefix.split("/"));
    // The folder may hold nothing tracked at the base; the thread still starts there.
    mkdirSync(cwd, { recursive: true });
    const now = new Date((options.now ?? Date.now)()).toISOString();
    const record: WorktreeRecord = {
      path,
      projectCwd: resolve(options.projectCwd ?? options.cwd),
      checkoutRoot: repo.root,
      repoRoot: repo.commonDir,
      baseRef,
      baseSha,
      createdAt: now,
      lastUsedAt: now,
      threadIds: [...(options.threadIds ?? [])],
      ...(options.environment !== undefined ? { environment: options.environment } : {}),
      deleted: false,
    };
    writeRecord(bucketDir, record);
    return { bucketDir, record, cwd };
  } catch (error) {
    await unregisterWorktree(repo.commonDir, path, git).catch(() => undefined);
    cleanup();
    throw error instanceof WorktreeError || !isSystemError(error)
      ? error
      : new WorktreeError("io", `cannot create the worktree at ${path}: ${(error as Error).message}`, { cause: error });
  }
}

/** The commit `ref` names in the repository at `cwd`; WorktreeError `invalidParams` when it names none. */
export async function resolveCommit(cwd: string, ref: string, git: WorktreeGit): Promise<string> {
  if (ref === "" || ref.startsWith("-")) throw new WorktreeError("invalidParams", `baseRef ${JSON.stringify(ref)} is not a ref or commit`);
  const text = await gitText(["rev-parse", "--verify", "--quiet", `${ref}^{commit}`], {
    cwd,
    ...(git.env ? { env: git.env } : {}),
    okCodes: [1, 128],
  });
  const sha = text.trim();
  if (!/^[0-9a-f]{40,64}$/.test(sha)) throw new WorktreeError("invalidParams", `baseRef ${JSON.stringify(ref)} names no commit in ${cwd}`);
  return sha;
}

/** The base's trees, or with `carry` the checkout's uncommitted state moved onto the base. */
function startTrees(repo: RepoInfo, baseSha: string, git: WorktreeGit, carry: boolean | undefined): Promise<StateTrees> {
  return carry ? carriedTrees(repo, baseSha, git) : Promise.resolve({ index: baseSha, work: baseSha });
}

/** The checkout's uncommitted state as trees, moved onto `baseSha` when its HEAD is another commit. */
async function carriedTrees(repo: RepoInfo, baseSha: string, git: WorktreeGit): Promise<StateTrees> {
  const local = await stateTrees(repo.root, repo.gitDir, git);
  const head = (
    await gitText(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], { cwd: repo.root, ...(git.env ? { env: git.env } : {}), okCodes: [1, 128] })
  ).trim();
  if (head === baseSha) return local;
  const from = head === "" ? await emptyTree(repo.root, git) : head;
  const index = await carryOnto(local.index, from, baseSha, repo.root, git);
  const work = local.work === local.index ? index : await carryOnto(local.work, from, baseSha, repo.root, git);
  return { index, work };
}

/**
 * A new bucket folder under `root` (made when missing), another name
 * tried when one is taken. `cleanup` removes the bucket and whatever of
 * the root this call made.
 */
function makeBucket(root: string): { bucketDir: string; cleanup: () => void } {
  let firstMade: string | undefined;
  let realRoot: string;
  try {
    firstMade = mkdirSync(root, { recursive: true, mode: 0o700 });
    realRoot = existingRealPath(root) ?? root;
  } catch (error) {
    throw new WorktreeError("io", `cannot create the worktrees folder ${root}: ${(error as Error).message}`, { cause: error });
  }
  const removeMadeRoot = () => {
    if (firstMade === undefined) return;
    for (let dir = resolve(root); isWithin(firstMade, dir); dir = dirname(dir)) {
      try {
        rmdirSync(dir);
      } catch {
        return;
      }
      if (dir === firstMade) return;
    }
  };
  for (let attempt = 0; attempt < BUCKET_ATTEMPTS; attempt++) {
    const bucketDir = join(realRoot, newBucket());
    try {
      mkdirSync(bucketDir, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST") continue;
      removeMadeRoot();
      throw new WorktreeError("io", `cannot create a folder in ${root}: ${(error as Error).message}`, { cause: error });
    }
    return {
      bucketDir,
      cleanup: () => {
        rmSync(bucketDir, { recursive: true, force: true });
        removeMadeRoot();
      },
    };
  }
  removeMadeRoot();
  throw new WorktreeError("io", `no free folder name in ${root} after ${BUCKET_ATTEMPTS} tries`);
}

/**
 * Removes the worktree at `path` and its registration in the repository
 * whose shared git folder is `commonDir`, whatever state it is in; nothing
 * else of the repository is touched (no `git worktree prune`, which would
 * drop the user's own stale worktrees too).
 */
export async function unregisterWorktree(commonDir: string, path: string, git: WorktreeGit): Promise<void> {
  try {
    await runGit(["--git-dir", commonDir, "worktree", "remove", "--force", "--force", path], {
      cwd: commonDir,
      ...(git.env ? { env: git.env } : {}),
      config: git.config,
      readOnly: false,
    });
  } catch (error) {
    if (!(error instanceof GitCommandError) || error.gitMissing) throw error;
    // Not a working tree any more (its folder went, or the add stopped half way): remove its admin folder by hand.
    const admin = adminFolderOf(path, commonDir);
    if (admin) rmSync(admin, { recursive: true, force: true });
  }
  rmSync(path, { recursive: true, force: true });
}

/**
 * The `.git/worktrees/<name>` folder that registers the worktree at
 * `path`: the one `path/.git` points to, else the one whose `gitdir` file
 * names `path/.git`; only ever a folder inside `commonDir/worktrees`.
 */
function adminFolderOf(path: string, commonDir: string): string | undefined {
  const admins = join(commonDir, "worktrees");
  const pointed = gitdirIn(join(path, ".git"), path);
  if (pointed !== undefined) {
    const admin = existingRealPath(pointed) ?? pointed;
    if (isWithin(admins, admin) && admin !== admins) return admin;
  }
  let names: string[];
  try {
    names = readdirSync(admins);
  } catch {
    return undefined;
  }
  const wanted = join(path, ".git");
  return names.map((name) => join(admins, name)).find((admin) => readText(join(admin, "gitdir"))?.trim() === wanted);
}

/** The folder a `gitdir: <path>` file names, relative ones taken from `base`. */
function gitdirIn(file: string, base: string): string | undefined {
  const match = /^gitdir: (.+)$/m.exec(readText(file) ?? "");
  if (!match) return undefined;
  return isAbsolute(match[1]!) ? match[1]! : resolve(base, match[1]!);
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

function isSystemError(error: unknown): boolean {
  return typeof (error as NodeJS.ErrnoException | undefined)?.syscall === "string";
}

/**
 * Removes a worktree made for a thread that could not be created: its
 * folder, its registration and its bucket with the record. No snapshot:
 * nothing ran there yet.
 */
export async function discardWorktree(created: StoredWorktree, env?: NodeJS.ProcessEnv): Promise<void> {
  const git = await contextFor([created.record.path, created.record.checkoutRoot], env);
  await unregisterWorktree(created.record.repoRoot, created.record.path, git);
  rmSync(created.bucketDir, { recursive: true, force: true });
}
