import type { ClientRequestMethod } from "@knightcode/app-server-protocol";
import type { Handler, HandlerTable } from "./rpc/handler.js";
import { diagnostics } from "./lifecycle/diagnostics.js";
import { initialize } from "./lifecycle/initialize.js";
import { readPayload } from "./payloads/read.js";
import type { ThreadHandler } from "./threads/thread-handler.js";

type ThreadModule = typeof import("./threads/handlers.js");

let threadModule: Promise<ThreadModule> | undefined;

/**
 * A handler from the thread layer. The layer (the agent, its tools, TypeBox)
 * is not loaded until a request needs it, so the handshake never waits for it.
 */
function fromThreads<M extends ClientRequestMethod>(pick: (module: ThreadModule) => ThreadHandler<M>): Handler<M> {
  return async (params, ctx) => {
    threadModule ??= import("./threads/handlers.js");
    const [module, threads] = await Promise.all([threadModule, ctx.server.threads()]);
    return pick(module)(params, ctx, threads);
  };
}

/** Every client request's handler, by method. */
export const handlers: HandlerTable = {
  initialize,
  "server/diagnostics": diagnostics,
  "thread/start": fromThreads((m) => m.startThread),
  "thread/resume": fromThreads((m) => m.resumeThread),
  "thread/fork": fromThreads((m) => m.forkThread),
  "thread/unsubscribe": fromThreads((m) => m.unsubscribeThread),
  "thread/name/set": fromThreads((m) => m.setThreadName),
  "thread/settings/update": fromThreads((m) => m.updateThreadSettings),
  "thread/read": fromThreads((m) => m.readThread),
  "thread/list": fromThreads((m) => m.listThreads),
  "thread/archive": fromThreads((m) => m.archiveThread),
  "thread/unarchive": fromThreads((m) => m.unarchiveThread),
  "thread/delete": fromThreads((m) => m.deleteThread),
  "model/list": fromThreads((m) => m.listModels),
  "turn/start": fromThreads((m) => m.startTurn),
  "turn/steer": fromThreads((m) => m.steerTurn),
  "turn/queue/add": fromThreads((m) => m.addToQueue),
  "turn/queue/remove": fromThreads((m) => m.removeFromQueue),
  "turn/interrupt": fromThreads((m) => m.interruptTurn),
  "thread/compact/start": fromThreads((m) => m.startCompaction),
  "project/trust/read": fromThreads((m) => m.readProjectTrust),
  "project/trust/set": fromThreads((m) => m.setProjectTrust),
  "payload/read": readPayload,
};
