import { lifecycle } from "./lifecycle.js";
import { payloads } from "./payloads.js";
import { threads } from "./threads.js";
import { turns } from "./turns.js";
import { turnControl } from "./turn-control.js";
import { ui } from "./ui.js";
import { approvals } from "./approvals.js";
import { dialogs } from "./dialogs.js";
import { commands } from "./commands.js";
import { config } from "./config.js";
import { tools } from "./tools.js";
import { accounts } from "./accounts.js";
import { mcp } from "./mcp.js";
import { search } from "./search.js";
import { git } from "./git.js";
import { workspaces } from "./workspaces.js";
import { diffs } from "./diffs.js";
import { rewind } from "./rewind.js";
import { review } from "./review.js";
import { terminals } from "./terminals.js";

/**
 * The protocol, once: every client request, client notification, server
 * request and server notification. The dispatcher, the client's typed
 * `request`, the JSON Schema file and the method reference are derived from it.
 */
export const protocol = {
  clientRequests: {
    ...lifecycle.clientRequests,
    ...threads.clientRequests,
    ...turns.clientRequests,
    ...turnControl.clientRequests,
    ...approvals.clientRequests,
    ...payloads.clientRequests,
    ...ui.clientRequests,
    ...commands.clientRequests,
    ...config.clientRequests,
    ...tools.clientRequests,
    ...accounts.clientRequests,
    ...mcp.clientRequests,
    ...search.clientRequests,
    ...git.clientRequests,
    ...workspaces.clientRequests,
    ...diffs.clientRequests,
    ...rewind.clientRequests,
    ...review.clientRequests,
    ...terminals.clientRequests,
  },
  clientNotifications: {
    ...lifecycle.clientNotifications,
  },
  serverRequests: {
    ...approvals.serverRequests,
    ...dialogs.serverRequests,
  },
  serverNotifications: {
    ...lifecycle.serverNotifications,
    ...threads.serverNotifications,
    ...turns.serverNotifications,
    ...turnControl.serverNotifications,
    ...ui.serverNotifications,
    ...accounts.serverNotifications,
    ...workspaces.serverNotifications,
    ...diffs.serverNotifications,
    ...rewind.serverNotifications,
    ...terminals.serverNotifications,
  },
} as const;

export type Protocol = typeof protocol;
