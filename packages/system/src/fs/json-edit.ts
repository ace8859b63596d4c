import { applyEdits, type FormattingOptions, type JSONPath, modify } from "jsonc-parser";
import { formatJson } from "./json-file.js";

const isPlainObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

/** The file's own indentation and line ends, read off its text, so a changed value is laid out like its neighbours. */
function formattingOf(text: string): FormattingOptions {
  const indent = /^([ \t]+)\S/m.exec(text)?.[1];
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  if (indent?.startsWith("\t")) return { insertSpaces: false, tabSize: 1, eol };
  return { insertSpaces: true, tabSize: indent?.length ?? 2, eol };
}

/** Same JSON value, key order aside: what decides whether a part changed at all. */
function sameValue(a: unknown, b: unknown): boolean {
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && sameValue(a[key], b[key]));
  }
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, index) => sameValue(item, b[index]));
  return a === b;
}

/** One `modify` per changed leaf, found by walking both values: objects key by key, arrays of one length item by item. */
function changes(before: unknown, after: unknown, path: JSONPath, out: { path: JSONPath; value: unknown }[]): void {
  if (sameValue(before, after)) return;
  if (isPlainObject(before) && isPlainObject(after)) {
    for (const key of Object.keys(before)) if (!Object.hasOwn(after, key)) out.push({ path: [...path, key], value: undefined });
    for (const [key, value] of Object.entries(after)) changes(before[key], value, [...path, key], out);
    return;
  }
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    for (const [index, item] of after.entries()) changes(before[index], item, [...path, index], out);
    return;
  }
  out.push({ path, value: after });
}

/**
 * The text of a JSON file after its value changed from `before` to
 * `after`, keeping what the user wrote everywhere else: indentation, key
 * order, other keys, line ends. Only the values that changed are
 * rewritten, each with jsonc-parser's `modify`. A file with no text yet (or
 * a change of the whole value's type) is written out whole, as every
 * writer here always has.
 */
export function editJsonText(text: string | undefined, before: unknown, after: unknown): string {
  if (text === undefined || text.trim() === "" || !isPlainObject(before) || !isPlainObject(after)) return formatJson(after);
  const formattingOptions = formattingOf(text);
  const found: { path: JSONPath; value: unknown }[] = [];
  changes(before, after, [], found);
  let edited = text;
  for (const { path, value } of found) {
    // A removal needs no layout, and jsonc-parser would otherwise re-space the neighbour it joins.
    const options = value === undefined ? {} : { formattingOptions };
    edited = applyEdits(edited, modify(edited, path, value, options));
  }
  // The edits stand only if they say exactly the new value; anything else would be a write of a value nobody asked for.
  let check: unknown;
  try {
    check = JSON.parse(edited);
  } catch {
    return formatJson(after);
  }
  return sameValue(check, after) ? edited : formatJson(after);
}
