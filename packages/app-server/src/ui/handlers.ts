import type { ThreadHandlers } from "../threads/thread-handler.js";
import { sendViewEvent } from "./event.js";

/** ui/*: what a client sends back to the thread's extension UI. */
export const uiHandlers = {
  "ui/event": sendViewEvent,
} satisfies ThreadHandlers;
