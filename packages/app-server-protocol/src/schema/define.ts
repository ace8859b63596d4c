import type { TSchema } from "typebox";
import type { ErrorCode } from "../errors.js";

/** A client-to-server or server-to-client request: params in, result out. */
export interface RequestDef<P extends TSchema = TSchema, R extends TSchema = TSchema> {
  readonly kind: "request";
  readonly params: P;
  readonly result: R;
  /** Method-specific error codes, beyond the common ones every method may answer. */
  readonly errors: readonly ErrorCode[];
  /** The `data.reason` values its errors may carry, each with what it means: what a client branches on. */
  readonly reasons: Readonly<Record<string, string>>;
  readonly doc: string;
}

/** A message with no answer. */
export interface NotificationDef<P extends TSchema = TSchema> {
  readonly kind: "notification";
  readonly params: P;
  readonly doc: string;
}

export function request<P extends TSchema, R extends TSchema>(def: {
  params: P;
  result: R;
  errors?: readonly ErrorCode[];
  reasons?: Readonly<Record<string, string>>;
  doc: string;
}): RequestDef<P, R> {
  return { kind: "request", params: def.params, result: def.result, errors: def.errors ?? [], reasons: def.reasons ?? {}, doc: def.doc };
}

export function notification<P extends TSchema>(def: { params: P; doc: string }): NotificationDef<P> {
  return { kind: "notification", params: def.params, doc: def.doc };
}

/** One domain's slice of the method table; the table merges the slices. */
export interface ProtocolSlice {
  readonly clientRequests?: Record<string, RequestDef>;
  readonly clientNotifications?: Record<string, NotificationDef>;
  readonly serverRequests?: Record<string, RequestDef>;
  readonly serverNotifications?: Record<string, NotificationDef>;
}
