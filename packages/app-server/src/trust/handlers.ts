import type { ThreadHandlers } from "../threads/thread-handler.js";
import { readProjectTrust } from "./read.js";
import { setProjectTrust } from "./set.js";

/** project/trust/*: the server-owned trust store. */
export const trustHandlers = {
  "project/trust/read": readProjectTrust,
  "project/trust/set": setProjectTrust,
} satisfies ThreadHandlers;
