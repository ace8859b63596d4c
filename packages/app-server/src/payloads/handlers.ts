import { readPayload } from "./read.js";

/** payload/read: served from the spool, without loading the thread layer. */
export const payloadHandlers = {
  "payload/read": readPayload,
};
