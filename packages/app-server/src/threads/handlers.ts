/** The thread layer's handlers: one module, loaded on the first request that needs a thread. */
export { listModels } from "../models/list.js";
export { forkThread, setThreadName, unsubscribeThread, updateThreadSettings } from "./manage.js";
export { resumeThread } from "./resume.js";
export { startThread } from "./start.js";
export { startTurn } from "../turns/start.js";
export { addToQueue, interruptTurn, removeFromQueue, startCompaction, steerTurn } from "../turns/control.js";
export { readProjectTrust, setProjectTrust } from "../approvals/trust.js";
export { archiveThread, deleteThread, unarchiveThread } from "./archive.js";
export { listThreads, readThread } from "./list.js";
