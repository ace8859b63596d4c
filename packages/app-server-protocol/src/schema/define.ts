import { Type, type TSchema } from "typebox";
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
  return { kind: "notification", params: withSeq(def.params), doc: def.doc };
}

/** The `seq` a connection initialized with `capabilities.sequenced` finds on every notification about a thread. */
const Seq = Type.Integer({
  minimum: 1,
  description:
    "Only for a connection initialized with capabilities.sequenced: the thread's counter, one more for each notification sent to its subscribers. Pass the last one seen as thread/resume's afterSeq.",
});

/** The `parentThreadId` a connection initialized with `capabilities.subagents` finds on a sub-agent's notifications. */
const ParentThreadId = Type.String({
  description:
    "Only for a connection initialized with capabilities.subagents, on a sub-agent's notification sent because the connection is subscribed to its parent: the parent thread.",
});

/**
 * A notification's params, with an optional `seq` and `parentThreadId`
 * when they are about a thread (they name `threadId` or carry `thread`):
 * written once here, so no notification about a thread can be without them.
 */
function withSeq<P extends TSchema>(params: P): P {
  const { type, properties, required, ...options } = params as TSchema & { type?: unknown; properties?: Record<string, TSchema>; required?: unknown };
  if (type !== "object" || properties === undefined || !("threadId" in properties || "thread" in properties)) return params;
  return Type.Object({ ...properties, seq: Type.Optional(Seq), parentThreadId: Type.Optional(ParentThreadId) }, options) as unknown as P;
}

/** One domain's slice of the method table; the table merges the slices. */
export interface ProtocolSlice {
  readonly clientRequests?: Record<string, RequestDef>;
  readonly clientNotifications?: Record<string, NotificationDef>;
  readonly serverRequests?: Record<string, RequestDef>;
  readonly serverNotifications?: Record<string, NotificationDef>;
}
