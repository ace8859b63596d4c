import type { ThreadHandler } from "../threads/thread-handler.js";
import { accountService } from "./account-service.js";

/** account/login/cancel: stops a pending OAuth login; answers once its callback server closed. */
export const cancelLogin: ThreadHandler<"account/login/cancel"> = async (params, ctx, threads) => ({
  cancelled: await accountService(ctx, threads).logins.cancel(params.loginId),
});
