import { archiveThread, unarchiveThread } from "./archive.js";
import { deleteThread } from "./delete.js";
import { forkThread } from "./fork.js";
import { setThreadName } from "./name-set.js";
import { resumeThread } from "./resume.js";
import { updateThreadSettings } from "./settings-update.js";
import { startThread } from "./start.js";
import type { ThreadHandlers } from "./thread-handler.js";
import { unsubscribeThread } from "./unsubscribe.js";

/** The thread/* methods that need the thread layer: one file per method, named after it (thread/list and thread/read are in listing-layer.ts). */
export const threadHandlers = {
  "thread/start": startThread,
  "thread/resume": resumeThread,
  "thread/fork": forkThread,
  "thread/unsubscribe": unsubscribeThread,
  "thread/name/set": setThreadName,
  "thread/settings/update": updateThreadSettings,
  "thread/archive": archiveThread,
  "thread/unarchive": unarchiveThread,
  "thread/delete": deleteThread,
} satisfies ThreadHandlers;
