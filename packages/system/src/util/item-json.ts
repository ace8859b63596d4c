/**
 * JSON text made ahead of time for the items of one array in a message's
 * result. A large answer, such as a diff of thousands of files, is then
 * serialized item by item while it is read, and its message is written in
 * parts as they are joined, so the first bytes reach the client while the
 * rest is still being encoded. The text is kept under a symbol:
 * `JSON.stringify`, schema checks and in-memory readers see the plain value.
 */
const ITEM_JSON = Symbol("knightcode.itemJson");

interface ItemJson {
  key: string;
  items: readonly unknown[];
  texts: readonly string[];
}

/** How long a part of a message's text grows before it is cut: about what a pipe holds. */
export const PART_CHARS = 64 * 1024;

/**
 * Records `texts`, the `JSON.stringify` of each item of `holder[key]` in
 * order, on `holder`. Neither the array nor its items may change
 * afterwards; a different array or length there is noticed, and the
 * message is then serialized whole.
 */
export function attachItemJson<T extends object>(holder: T, key: string & keyof T, texts: readonly string[]): T {
  const items = holder[key];
  if (!Array.isArray(items) || items.length !== texts.length) throw new Error(`item JSON for ${key} does not match its ${String(texts.length)} items`);
  Object.defineProperty(holder, ITEM_JSON, { value: { key, items, texts } satisfies ItemJson, enumerable: false, configurable: true });
  return holder;
}

/**
 * The text of `message` in parts of about `partChars` characters, when its
 * `result` carries item JSON (see attachItemJson); undefined otherwise.
 * Joined, the parts are the message's JSON, with the result last and the
 * array last in it; JSON objects have no order, so it parses as
 * `JSON.stringify(message)` does.
 */
export function messageParts(message: Record<string, unknown>, partChars = PART_CHARS): string[] | undefined {
  const result = message.result;
  if (typeof result !== "object" || result === null) return undefined;
  const prepared = (result as { [ITEM_JSON]?: ItemJson })[ITEM_JSON];
  if (prepared === undefined) return undefined;
  const { key, items, texts } = prepared;
  const fields = result as Record<string, unknown>;
  if (fields[key] !== items || items.length !== texts.length || typeof fields.toJSON === "function") return undefined;
  const { [key]: _items, ...rest } = fields;
  const { result: _result, ...others } = message;
  // Placed last in the result, placed last in the message, the array's place is the `0` before the final `}}`.
  const head = JSON.stringify({ ...others, result: { ...rest, [key]: 0 } });
  const parts: string[] = [];
  let part = `${head.slice(0, -3)}[`;
  for (let i = 0; i < texts.length; i++) {
    part += i === 0 ? texts[i] : `,${texts[i]}`;
    if (part.length >= partChars) {
      parts.push(part);
      part = "";
    }
  }
  parts.push(`${part}]}}`);
  return parts;
}
