import type { ThreadHandlers } from "../threads/thread-handler.js";
import { cancelLogin } from "./account-login-cancel.js";
import { startLogin } from "./account-login-start.js";
import { logout } from "./account-logout.js";
import { readAccounts } from "./account-read.js";

/** account/*: provider credentials in auth.json, and pi-ai's OAuth logins. */
export const accountHandlers = {
  "account/read": readAccounts,
  "account/login/start": startLogin,
  "account/login/cancel": cancelLogin,
  "account/logout": logout,
} satisfies ThreadHandlers;
