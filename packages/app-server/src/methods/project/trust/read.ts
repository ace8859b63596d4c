import { requireDirectory } from "../../../threads/directory.js";
import type { Handler } from "../../../rpc/handler.js";
import { trustError } from "../../../trust/errors.js";

/** project/trust/read: the server-owned decision for a project folder. */
export const handler: Handler<"project/trust/read"> = async (params, ctx) => {
  const trust = await ctx.services.trust();
  const cwd = requireDirectory(params.cwd);
  try {
    const state = trust.read(cwd);
    return { trusted: state.trusted, needsTrust: state.needsTrust };
  } catch (error) {
    throw trustError(error);
  }
};
