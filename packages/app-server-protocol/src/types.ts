import type { ErrorCode } from "./errors.js";
import type {
  ClientNotifications,
  ClientRequests,
  DialogParams,
  Item,
  ItemToolCallRequestApprovalParams,
  ItemToolCallRequestApprovalResult,
  ItemToolCallRequestUserInputParams,
  ItemToolCallRequestUserInputResult,
  RequestId,
  ServerNotifications,
  ServerRequests,
  Turn,
  TurnError,
  UiDialogResult,
  View,
} from "./generated/types.js";

/*
 * Every shape the protocol carries is generated from the method table into
 * ./generated/types.ts as plain interfaces; this file adds the per-method
 * lookups, the JSON-RPC envelopes and a few friendly names.
 */
export type * from "./generated/types.js";

export type ClientRequestMethod = keyof ClientRequests & string;
export type ClientNotificationMethod = keyof ClientNotifications & string;
export type ServerRequestMethod = keyof ServerRequests & string;
export type ServerNotificationMethod = keyof ServerNotifications & string;

// Written as conditional types so a handler typed for several methods with one
// shape (git/stage and git/unstage) stays assignable to each: TypeScript then
// compares the shapes instead of the method names.
type ParamsOf<D> = D extends { params: infer P } ? P : never;
type ResultOf<D> = D extends { result: infer R } ? R : never;

export type ClientRequestParams<M extends ClientRequestMethod> = ParamsOf<ClientRequests[M]>;
export type ClientRequestResult<M extends ClientRequestMethod> = ResultOf<ClientRequests[M]>;
export type ClientNotificationParams<M extends ClientNotificationMethod> = ParamsOf<ClientNotifications[M]>;
export type ServerRequestParams<M extends ServerRequestMethod> = ParamsOf<ServerRequests[M]>;
export type ServerRequestResult<M extends ServerRequestMethod> = ResultOf<ServerRequests[M]>;
export type ServerNotificationParams<M extends ServerNotificationMethod> = ParamsOf<ServerNotifications[M]>;

/**
 * A notification as a handler of every notification receives it, `[method, params]`: a handler
 * declared `(method, params) => ...` narrows `params` by checking `method`.
 */
export type AnyServerNotification = { [M in ServerNotificationMethod]: [method: M, params: ServerNotificationParams<M>] }[ServerNotificationMethod];

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

/** The `type` of an inline item. */
export type ItemType = Item["type"];
/** The item variant of one type: `ItemOf<"toolCall">` is `ToolCallItem`. */
export type ItemOf<T extends ItemType> = Extract<Item, { type: T }>;
export type TurnStatus = Turn["status"];
export type TurnErrorKind = TurnError["kind"];

/** `item/toolCall/requestApproval`: the server asks before a tool call runs. */
export type ApprovalRequest = ItemToolCallRequestApprovalParams;
export type ApprovalResponse = ItemToolCallRequestApprovalResult;
/** `item/toolCall/requestUserInput`: the model asks the user questions. */
export type UserInputRequest = ItemToolCallRequestUserInputParams;
export type UserInputResponse = ItemToolCallRequestUserInputResult;
/** `ui/dialog`: an extension asks the user; `kind` narrows the union. */
export type Dialog = DialogParams;
export type DialogResponse = UiDialogResult;
export type DialogKind = DialogParams["kind"];
/** A view control: the view nodes that carry an `id` the client reports events for. */
export type ViewControl = Extract<View, { id: string }>;
