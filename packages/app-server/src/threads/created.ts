import type { ClientRequestResult } from "@knightcode/app-server-protocol";
import type { LoadedThread } from "./loaded-thread.js";

/** What thread/start and thread/fork answer: the thread, its load warnings and its extension UI. */
export function threadCreated(thread: LoadedThread): ClientRequestResult<"thread/start"> {
  return { thread: thread.thread(), warnings: thread.loadWarnings, ui: thread.ui.snapshot() };
}
