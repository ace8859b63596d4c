import type { Static, TSchema } from "typebox";
import type { Protocol } from "./schema/table.js";
import type { ErrorCode } from "./errors.js";

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
