import { readThreadPlace } from "@knightcode/repo/worktrees/workspace";
import { rpcError } from "../../rpc/errors.js";
import { requireDirectory } from "../../threads/directory.js";
import { sessionError } from "../../rpc/session-error.js";
import type { Handler } from "../../rpc/handler.js";
import { withBuiltins } from "../../commands/builtins.js";

/**
 * command/list: a loaded thread's commands as it has them; a saved thread
 * that is not loaded, or a folder, from a session built in memory in its
 * folder (nothing starts, loads or is written), so a client can fill its
 * command menu before it resumes anything.
 */
export const handler: Handler<"command/list"> = async (params, ctx) => {
  const threads = await ctx.services.threads();
  if ((params.threadId === undefined) === (params.cwd === undefined)) {
    throw rpcError("invalidParams", "params: give threadId or cwd, exactly one of them");
  }
  if (params.cwd !== undefined) return { commands: withBuiltins(await threads.commandsFor(requireDirectory(params.cwd))) };
  const threadId = params.threadId!;
  const loaded = threads.get(threadId);
  if (loaded) return { commands: withBuiltins(loaded.runtime.commands()) };
  const saved = threads.find(threadId);
  if (!saved) throw rpcError("threadNotFound", `no saved thread ${threadId}`);
  let cwd: string;
  try {
    cwd = (await readThreadPlace(saved.path)).place.cwd;
  } catch (error) {
    throw sessionError(error, threadId);
  }
  return { commands: withBuiltins(await threads.commandsFor(cwd)) };
};
