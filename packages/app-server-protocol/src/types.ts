import type { Static, TSchema } from "typebox";
import type { Protocol } from "./schema/table.js";
import type { ErrorCode } from "./errors.js";
import type * as Approvals from "./schema/approvals.js";
import type * as Common from "./schema/common.js";
import type * as Dialogs from "./schema/dialogs.js";
import type * as Items from "./schema/items.js";
import type * as Threads from "./schema/threads.js";
import type * as Views from "./schema/views.js";

type ParamsOf<D> = D extends { params: infer P extends TSchema } ? Static<P> : never;
type ResultOf<D> = D extends { result: infer R extends TSchema } ? Static<R> : never;

export type ClientRequestMethod = keyof Protocol["clientRequests"] & string;
export type ClientNotificationMethod = keyof Protocol["clientNotifications"] & string;
export type ServerRequestMethod = keyof Protocol["serverRequests"] & string;
export type ServerNotificationMethod = keyof Protocol["serverNotifications"] & string;

export type ClientRequestParams<M extends ClientRequestMethod> = ParamsOf<Protocol["clientRequests"][M]>;
export type ClientRequestResult<M extends ClientRequestMethod> = ResultOf<Protocol["clientRequests"][M]>;
export type ClientNotificationParams<M extends ClientNotificationMethod> = ParamsOf<Protocol["clientNotifications"][M]>;
export type ServerRequestParams<M extends ServerRequestMethod> = ParamsOf<Protocol["serverRequests"][M]>;
export type ServerRequestResult<M extends ServerRequestMethod> = ResultOf<Protocol["serverRequests"][M]>;
export type ServerNotificationParams<M extends ServerNotificationMethod> = ParamsOf<Protocol["serverNotifications"][M]>;

export type RequestId = string | number;

export interface WireError {
  code: ErrorCode;
  message: string;
  data?: Record<string, unknown>;
}

export interface RequestMessage {
  id: RequestId;
  method: string;
  params?: unknown;
}

export interface NotificationMessage {
  method: string;
  params?: unknown;
}

export interface ResultMessage {
  id: RequestId;
  result: unknown;
}

export interface ErrorMessage {
  id: RequestId;
  error: WireError;
}

export type ResponseMessage = ResultMessage | ErrorMessage;
export type Message = RequestMessage | NotificationMessage | ResponseMessage;

/*
 * The shapes the protocol carries, each derived from its schema: nothing
 * here is written by hand beside the table.
 */

/** An item as it travels inline; `type` narrows the union. */
export type Item = Static<typeof Items.Item>;
export type ItemType = Item["type"];
export type ItemOf<T extends ItemType> = Extract<Item, { type: T }>;
/** An item in history or a snapshot: inline, or moved whole behind a payload reference. */
export type HistoryItem = Static<typeof Items.HistoryItem>;
export type ItemReference = Static<typeof Items.ItemReference>;
export type ToolCallStatus = Static<typeof Items.ToolCallStatus>;
export type FileChange = Static<typeof Items.FileChange>;
export type PayloadRef = Static<typeof Items.PayloadRef>;
export type ImageRef = Static<typeof Items.ImageRef>;

export type Turn = Static<typeof Threads.Turn>;
export type TurnStatus = Turn["status"];
export type TurnError = Static<typeof Threads.TurnError>;
export type TurnErrorKind = TurnError["kind"];
export type FileTotals = Static<typeof Threads.FileTotals>;
export type Thread = Static<typeof Threads.Thread>;
export type ThreadStatus = Static<typeof Threads.ThreadStatus>;
export type ThreadSummary = Static<typeof Threads.ThreadSummary>;
export type ThreadUi = Static<typeof Threads.ThreadUi>;
export type Workspace = Static<typeof Threads.Workspace>;
export type TokenUsage = Static<typeof Threads.TokenUsage>;
export type ApprovalMode = Static<typeof Threads.ApprovalMode>;
export type ThinkingLevel = Static<typeof Threads.ThinkingLevel>;
export type ModelRef = Static<typeof Threads.ModelRef>;
export type QueueSnapshot = Static<typeof Threads.QueueSnapshot>;
export type Warning = Static<typeof Common.Warning>;
export type ApprovalDecision = Static<typeof Approvals.ApprovalDecision>;
export type UserQuestion = ServerRequestParams<"item/toolCall/requestUserInput">["questions"][number];
export type UserAnswer = Static<typeof Dialogs.UserAnswer>;
/** A dialog's params; `kind` narrows the union. */
export type DialogParams = Static<typeof Dialogs.DialogParams>;
export type DialogKind = DialogParams["kind"];
/** A declarative view: one node, containers nested at most 8 deep (docs/declarative-views.md). */
export type View = Static<typeof Views.View>;
export type ViewControl = Extract<View, { id: string }>;
