import { conn } from "../../connection/connection.js";
import { reloaded } from "../../state/open-threads.js";
import { createWorkspaceModel } from "./model.js";

export type { CommitDraft, DiffQuery, ScriptLog } from "./model.js";

/** The page's workspace model, over the page's connection. */
export const workspace = createWorkspaceModel({ conn, reloaded });

export const pendingReviewComments = workspace.comments;
export const addReviewComment = workspace.addComment;
export const removeReviewComment = workspace.removeComment;
export const takeReviewComments = workspace.takeComments;
export const restoreReviewComments = workspace.restoreComments;
export const scriptLog = workspace.scriptLog;
export const watchWorkspaceProgress = workspace.watchProgress;
