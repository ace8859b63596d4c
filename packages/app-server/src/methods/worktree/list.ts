import { discoverRepo } from "@knightcode/repo/git/repo";
import { gitText } from "@knightcode/repo/git/run";
import type { StoredWorktree } from "@knightcode/repo/worktrees/record";
import type { ClientRequestResult } from "@knightcode/app-server-protocol";
import { requireDirectory } from "../../threads/directory.js";
import type { Handler } from "../../rpc/handler.js";

type Listed = ClientRequestResult<"worktree/list">["worktrees"][number];

/**
 * worktree/list: the managed worktrees, most recently used first; with
 * `cwd`, those of that project (made from its folder, or from its
 * repository).
 */
export const handler: Handler<"worktree/list"> = async (params, ctx) => {
  let all = (await ctx.services.worktrees()).all();
  if (params.cwd !== undefined) {
    const cwd = requireDirectory(params.cwd);
    const repository = await discoverRepo(cwd, ctx.context.env).then(
      (repo) => repo.commonDir,
      () => undefined,
    );
    all = all.filter(({ record }) => record.projectCwd === cwd || record.repoRoot === repository);
  }
  all.sort((a, b) => Date.parse(b.record.lastUsedAt) - Date.parse(a.record.lastUsedAt));
  const worktrees = await Promise.all(all.map((worktree) => listed(worktree, ctx.context.env)));
  return { worktrees };
};

async function listed({ record }: StoredWorktree, env: NodeJS.ProcessEnv): Promise<Listed> {
  const base = { path: record.path, projectCwd: record.projectCwd, threadIds: [...record.threadIds], lastUsedAt: record.lastUsedAt, deleted: record.deleted };
  if (record.deleted) return { ...base, ...(record.head !== undefined ? { head: record.head } : {}) };
  // One git call: the HEAD commit, then the branch's short name ("HEAD" when detached).
  const text = await gitText(["rev-parse", "HEAD", "--abbrev-ref", "HEAD"], { cwd: record.path, env }).catch(() => "");
  const [head, branch] = text.split("\n");
  return { ...base, ...(head ? { head } : {}), ...(branch && branch !== "HEAD" ? { branch } : {}) };
}
