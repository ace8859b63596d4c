import type { HandlerTable } from "./rpc/handler.js";
import { diagnostics } from "./lifecycle/diagnostics.js";
import { initialize } from "./lifecycle/initialize.js";
import { listModels } from "./models/list.js";
import { forkThread, setThreadName, unsubscribeThread, updateThreadSettings } from "./threads/manage.js";
import { resumeThread } from "./threads/resume.js";
import { startThread } from "./threads/start.js";
import { startTurn } from "./turns/start.js";

/** Every client request's handler, by method. */
export const handlers: HandlerTable = {
  initialize,
  "server/diagnostics": diagnostics,
  "thread/start": startThread,
  "thread/resume": resumeThread,
  "thread/fork": forkThread,
  "thread/unsubscribe": unsubscribeThread,
  "thread/name/set": setThreadName,
  "thread/settings/update": updateThreadSettings,
  "model/list": listModels,
  "turn/start": startTurn,
};
