import { createWorktree, discardWorktree } from "@knightcode/repo/worktrees/create";
import { readSessionHeader } from "@knightcode/store/session/read";
import type { LoadedThread } from "./loaded-thread.js";
import type { ThreadManager } from "./manager.js";
import type { SubAgentHost } from "./subagents.js";

/** The thread manager as the sub-agents see it. */
export function subAgentHost(manager: ThreadManager): SubAgentHost {
  return {
    get: (threadId) => manager.get(threadId),
    load: (threadId) => manager.load(threadId),
    parentOf: async (threadId) => {
      const loaded = manager.get(threadId);
      if (loaded) return loaded.file.header.parentThreadId;
      const found = manager.find(threadId);
      if (!found || found.archived) return undefined;
      return (await readSessionHeader(found.path).catch(() => undefined))?.parentThreadId;
    },
    create: (cwd, setup, options) => manager.create(cwd, setup, options),
    close: (thread: LoadedThread, reason) => manager.close(thread, reason),
    findModel: (ref) => manager.registry.find(ref),
    thinkingLevels: (model) => manager.registry.thinkingLevels(model as never),
    worktreeFor: async (parent) => {
      const env = manager.context.env;
      // From the parent's checkout as committed: the parent's uncommitted edits stay its own.
      const created = await createWorktree({ root: manager.worktrees.settings().root, cwd: parent.cwd, projectCwd: parent.file.header.cwd, env });
      const { record } = created;
      return {
        projectCwd: parent.file.header.cwd,
        workspace: { mode: "worktree", cwd: created.cwd, path: record.path, baseRef: record.baseSha },
        abandon: () => discardWorktree(created, env),
      };
    },
  };
}
