import type { ThreadHandlers } from "../threads/thread-handler.js";
import { startCompaction } from "./compact-start.js";
import { interruptTurn } from "./interrupt.js";
import { addToQueue } from "./queue-add.js";
import { removeFromQueue } from "./queue-remove.js";
import { startTurn } from "./start.js";
import { steerTurn } from "./steer.js";

/** The turn/* methods and manual compaction, which runs as a turn: one file per method, named after it. */
export const turnHandlers = {
  "turn/start": startTurn,
  "turn/steer": steerTurn,
  "turn/queue/add": addToQueue,
  "turn/queue/remove": removeFromQueue,
  "turn/interrupt": interruptTurn,
  "thread/compact/start": startCompaction,
} satisfies ThreadHandlers;
