import type { Handler } from "../../../rpc/handler.js";

/** account/login/cancel: stops a pending OAuth login; answers once its callback server closed. */
export const handler: Handler<"account/login/cancel"> = async (params, ctx) => {
  const accounts = await ctx.services.accounts();
  return { cancelled: await accounts.logins.cancel(params.loginId) };
};
