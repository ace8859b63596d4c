import { requireDirectory } from "../../../threads/directory.js";
import type { Handler } from "../../../rpc/handler.js";
import { trustError } from "../../../trust/errors.js";

/** project/trust/set: records a decision; later loads use it, loaded threads are not rebuilt. */
export const handler: Handler<"project/trust/set"> = async (params, ctx) => {
  const trust = await ctx.services.trust();
  const cwd = requireDirectory(params.cwd);
  try {
    await trust.set(cwd, params.trusted);
  } catch (error) {
    throw trustError(error);
  }
  return {};
};
