import { archiveThread, unarchiveThread } from "./archive.js";
import { deleteThread } from "./delete.js";
import { forkThread } from "./fork.js";
import { listThreads } from "./list.js";
import { setThreadName } from "./name-set.js";
import { readThread } from "./read.js";
import { resumeThread } from "./resume.js";
import { updateThreadSettings } from "./settings-update.js";
import { startThread } from "./start.js";
import type { ThreadHandlers } from "./thread-handler.js";
import { unsubscribeThread } from "./unsubscribe.js";

/** The thread/* methods: one file per method, named after it. */
export const threadHandlers = {
  "thread/start": startThread,
  "thread/resume": resumeThread,
  "thread/fork": forkThread,
  "thread/unsubscribe": unsubscribeThread,
  "thread/name/set": setThreadName,
  "thread/settings/update": updateThreadSettings,
  "thread/read": readThread,
  "thread/list": listThreads,
  "thread/archive": archiveThread,
  "thread/unarchive": unarchiveThread,
  "thread/delete": deleteThread,
} satisfies ThreadHandlers;
