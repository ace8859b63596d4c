import type { ClientRequestResult } from "@knightcode/app-server-protocol";
import type { AppServerClient, RequestOptions } from "./client.js";

/** A turn as history carries it, references and all. */
export type WireTurn = ClientRequestResult<"thread/resume">["turns"][number];
/** An item as history carries it: inline, or `{id, type, index?, payloadRef}`. */
export type WireItem = NonNullable<WireTurn["items"]>[number];
/** An item with every reference replaced by its value. */
export type ResolvedItem = Exclude<WireItem, { payloadRef: unknown }>;
/** A turn with its items (and the turn itself) read back from their references. */
export type ResolvedTurn = Omit<WireTurn, "payloadRef" | "items"> & { items?: ResolvedItem[] };

export interface PayloadRef {
  id: string;
  bytes: number;
}

export interface ReadPayloadOptions extends RequestOptions {
  /** Refuse a value larger than this many bytes instead of holding it in memory. */
  maxBytes?: number;
}

export type PayloadReadErrorKind = "inconsistent" | "tooLarge";

/** The server's chunks do not add up (or exceed `maxBytes`); local, never sent. */
export class PayloadReadError extends Error {
  override readonly name = "PayloadReadError";

  constructor(
    readonly kind: PayloadReadErrorKind,
    message: string,
  ) {
    super(message);
  }
}

const RESOLVE_CONCURRENCY = 4;

/**
 * A large value's bytes: `payload/read` from offset 0, following
 * `nextOffset` until `eof`. Given a reference rather than a bare id, the
 * total is checked against its `bytes`. Errors the server answers (an
 * expired reference is invalidParams with `data.reason: "unknownPayload"`)
 * arrive as AppServerError.
 */
export async function readPayload(client: AppServerClient, ref: string | PayloadRef, options: ReadPayloadOptions = {}): Promise<Buffer> {
  const { id, bytes } = typeof ref === "string" ? { id: ref, bytes: undefined } : ref;
  const { maxBytes, ...requestOptions } = options;
  if (bytes !== undefined && maxBytes !== undefined && bytes > maxBytes) throw tooLarge(id, maxBytes);
  const chunks: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const answer = await client.request("payload/read", { id, offset }, requestOptions);
    const chunk = Buffer.from(answer.data, "base64");
    chunks.push(chunk);
    offset += chunk.length;
    if (maxBytes !== undefined && offset > maxBytes) throw tooLarge(id, maxBytes);
    if (answer.eof) break;
    if (chunk.length === 0 || answer.nextOffset !== offset) {
      throw new PayloadReadError(
        "inconsistent",
        `payload ${id}: a chunk of ${chunk.length} bytes ended at byte ${offset} but nextOffset is ${String(answer.nextOffset)}`,
      );
    }
  }
  if (bytes !== undefined && offset !== bytes) throw new PayloadReadError("inconsistent", `payload ${id}: read ${offset} bytes, the reference says ${bytes}`);
  return Buffer.concat(chunks, offset);
}

function tooLarge(id: string, maxBytes: number): PayloadReadError {
  return new PayloadReadError("tooLarge", `payload ${id} is larger than ${maxBytes} bytes`);
}

async function readJson(client: AppServerClient, ref: PayloadRef, options: ReadPayloadOptions): Promise<unknown> {
  return JSON.parse((await readPayload(client, ref, options)).toString("utf8")) as unknown;
}

/**
 * An item with its values back in place: a whole-item reference becomes the
 * item it stands for, `inputRef` becomes `input` (parsed JSON) and
 * `outputRef` becomes `output` (text). An item without references comes back
 * unchanged.
 */
export async function resolveItem(client: AppServerClient, item: WireItem, options: ReadPayloadOptions = {}): Promise<ResolvedItem> {
  const whole = "payloadRef" in item ? ((await readJson(client, item.payloadRef, options)) as WireItem) : item;
  if ("payloadRef" in whole) throw new PayloadReadError("inconsistent", `item ${item.id}: its payload is itself a reference`);
  const { inputRef, outputRef, ...rest } = whole as ResolvedItem & { inputRef?: PayloadRef; outputRef?: PayloadRef };
  if (!inputRef && !outputRef) return whole;
  const [input, output] = await Promise.all([
    inputRef ? readJson(client, inputRef, options) : undefined,
    outputRef ? readPayload(client, outputRef, options).then((data) => data.toString("utf8")) : undefined,
  ]);
  return { ...rest, ...(inputRef ? { input } : {}), ...(outputRef ? { output } : {}) } as ResolvedItem;
}

/**
 * A turn with its values back in place: a referenced turn is read whole,
 * then each of its items is resolved (a few at a time, so a long turn does
 * not flood the connection).
 */
export async function resolveTurn(client: AppServerClient, turn: WireTurn, options: ReadPayloadOptions = {}): Promise<ResolvedTurn> {
  const whole = turn.payloadRef ? ((await readJson(client, turn.payloadRef, options)) as WireTurn) : turn;
  if (whole.payloadRef) throw new PayloadReadError("inconsistent", `turn ${turn.id}: its payload is itself a reference`);
  const { items, ...rest } = whole;
  if (items === undefined) return rest;
  return { ...rest, items: await mapLimited(items, RESOLVE_CONCURRENCY, (item) => resolveItem(client, item, options)) };
}

async function mapLimited<T, R>(values: readonly T[], limit: number, work: (value: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(values.length);
  let next = 0;
  const worker = async () => {
    while (next < values.length) {
      const index = next++;
      results[index] = await work(values[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, values.length) }, worker));
  return results;
}
