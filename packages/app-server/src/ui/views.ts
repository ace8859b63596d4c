import type { View, ViewControl } from "@knightcode/app-server-protocol";

/** Containers nest at most this many levels: 8 nested containers are valid, 9 are not. */
export const MAX_VIEW_DEPTH = 8;
/** A widget's view, as UTF-8 of its JSON. */
export const MAX_WIDGET_VIEW_BYTES = 16 * 1024;
/** A view on a tool result or an extension message, as UTF-8 of its JSON. */
export const MAX_ITEM_VIEW_BYTES = 64 * 1024;

export type ViewCheck = { ok: true; view: View; bytes: number } | { ok: false; reason: string };

/** The fields each node type may have, and which of them it must have. */
const NODES: Record<string, { required: readonly string[]; optional: readonly string[] }> = {
  stack: { required: ["children"], optional: ["direction"] },
  list: { required: ["children"], optional: [] },
  text: { required: ["text"], optional: [] },
  button: { required: ["id", "label"], optional: [] },
  toggle: { required: ["id", "label", "value"], optional: [] },
  select: { required: ["id", "options"], optional: ["value", "label"] },
  textField: { required: ["id"], optional: ["value", "placeholder", "label"] },
};

/** What every node costs at least as JSON (`{"type":"list"}`), so a long array is refused before it is walked. */
const MIN_NODE_BYTES = 15;

/** The last refusal thrown: a catch compares identities, since anything else thrown (a proxy's trap's) may itself be hostile. */
let lastRefusal: { reason: string } | undefined;

function fail(where: string, why: string): never {
  lastRefusal = { reason: `${where} ${why}` };
  throw lastRefusal;
}

function jsonStringBytes(text: string): number {
  return Buffer.byteLength(JSON.stringify(text), "utf8");
}

/**
 * An object's own data fields, read without running any code of the
 * extension's beyond what a proxy or a revoked one may do (which throws, and
 * counts as unreadable): getters are refused rather than called, and only
 * plain objects (`{}` or `Object.create(null)`) count as nodes.
 */
function plainFields(value: unknown, where: string): [string, unknown][] {
  if (value === null || typeof value !== "object" || Array.isArray(value)) fail(where, "is not an object");
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) fail(where, "is not a plain object");
  const fields: [string, unknown][] = [];
  for (const key of Reflect.ownKeys(value)) {
    if (typeof key !== "string") fail(where, "has a symbol key");
    const field = Object.getOwnPropertyDescriptor(value, key);
    if (!field) continue;
    if (!("value" in field)) fail(where, `has a getter or setter for ${JSON.stringify(key.slice(0, 32))}`);
    if (field.enumerable === false) continue;
    fields.push([key, field.value]);
  }
  return fields;
}

/** A real array's items, read the same way: no holes, no getters. */
function plainItems(value: unknown, where: string, maxItems: number): unknown[] {
  if (!Array.isArray(value) || Object.getPrototypeOf(value) !== Array.prototype) fail(where, "is not an array");
  const length = (value as unknown[]).length;
  if (length > maxItems) fail(where, "is over the size limit");
  const items: unknown[] = [];
  for (let i = 0; i < length; i++) {
    const item = Object.getOwnPropertyDescriptor(value, i);
    if (!item) fail(`${where}[${i}]`, "is missing");
    if (!("value" in item)) fail(`${where}[${i}]`, "is a getter");
    items.push(item.value);
  }
  return items;
}

/**
 * One walk over an untrusted value: checks it against the view format and
 * builds a copy of plain data as it goes. `budget` counts a lower bound of
 * the JSON bytes seen so far, so that no input, however large, is walked
 * much past the limit; the exact size is measured on the copy.
 */
class ViewReader {
  private budget: number;
  private readonly ids = new Set<string>();
  private readonly ancestors = new Set<object>();

  constructor(maxBytes: number) {
    this.budget = maxBytes;
  }

  private spend(bytes: number, where: string): void {
    this.budget -= bytes;
    if (this.budget < 0) fail(where, "is over the size limit");
  }

  private string(value: unknown, where: string): string {
    if (typeof value !== "string") fail(where, `must be a string, not ${describe(value)}`);
    // Each UTF-16 unit is at least one byte of JSON: a string longer than what is left is over before it is measured.
    if (value.length > this.budget) fail(where, "is over the size limit");
    this.spend(jsonStringBytes(value), where);
    return value;
  }

  node(value: unknown, where: string, depth: number): View {
    if (value !== null && typeof value === "object") {
      if (this.ancestors.has(value)) fail(where, "contains itself");
      this.ancestors.add(value);
    }
    try {
      return this.readNode(value, where, depth);
    } finally {
      if (value !== null && typeof value === "object") this.ancestors.delete(value);
    }
  }

  private readNode(value: unknown, where: string, depth: number): View {
    const fields = new Map(plainFields(value, where));
    this.spend(MIN_NODE_BYTES, where);
    const type = fields.get("type");
    if (typeof type !== "string") fail(where, "has no type");
    const shape = Object.hasOwn(NODES, type) ? NODES[type] : undefined;
    if (!shape) fail(where, `has an unknown type ${JSON.stringify(type.slice(0, 32))}`);
    const at = `${where} (${type})`;
    for (const [key, field] of fields) {
      if (field === undefined && key !== "type") fields.delete(key);
      else if (key !== "type" && !shape.required.includes(key) && !shape.optional.includes(key))
        fail(at, `has an unknown field ${JSON.stringify(key.slice(0, 32))}`);
      else if (key !== "type") this.spend(jsonStringBytes(key) + 2, at);
    }
    for (const key of shape.required) if (!fields.has(key)) fail(at, `has no ${key}`);
    // Every field is copied in the order the extension wrote it.
    const copy: Record<string, unknown> = {};
    for (const [key, field] of fields) copy[key] = key === "type" ? type : this.field(type, key, field, `${at}.${key}`, depth);
    if (type === "select" && copy.value !== undefined && !(copy.options as string[]).includes(copy.value as string)) {
      fail(at, "has a value that is not one of its options");
    }
    return copy as View;
  }

  private field(type: string, key: string, value: unknown, where: string, depth: number): unknown {
    switch (key) {
      case "children": {
        if (depth >= MAX_VIEW_DEPTH) fail(where, `nests containers more than ${MAX_VIEW_DEPTH} deep`);
        const items = plainItems(value, where, Math.floor(this.budget / MIN_NODE_BYTES));
        return items.map((child, i) => this.node(child, `${where}[${i}]`, depth + 1));
      }
      case "direction":
        if (value !== "vertical" && value !== "horizontal") fail(where, `must be "vertical" or "horizontal"`);
        this.spend(10, where);
        return value;
      case "id": {
        const id = this.string(value, where);
        if (id === "") fail(where, "is empty");
        if (this.ids.has(id)) fail(where, `repeats the control id ${JSON.stringify(id.slice(0, 32))}`);
        this.ids.add(id);
        return id;
      }
      case "options":
        return plainItems(value, where, this.budget / 3).map((option, i) => this.string(option, `${where}[${i}]`));
      case "value":
        if (type !== "toggle") return this.string(value, where);
        if (typeof value !== "boolean") fail(where, `must be a boolean, not ${describe(value)}`);
        this.spend(4, where);
        return value;
      default:
        return this.string(value, where);
    }
  }
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/**
 * Checks an extension's view against the format and the size limit, never
 * throwing whatever it is given (cycles, getters, proxies, symbols,
 * BigInt). A valid view comes back as a deep copy of plain data with the
 * same fields in the same order, so what is sent is what was checked, and
 * a later change to the extension's object changes neither. A field set to
 * `undefined` counts as absent, as JSON has it.
 */
export function checkView(value: unknown, maxBytes: number): ViewCheck {
  let view: View;
  try {
    view = new ViewReader(maxBytes).node(value, "the view", 0);
  } catch (error) {
    const refusal = lastRefusal;
    lastRefusal = undefined;
    return { ok: false, reason: error === refusal && refusal ? refusal.reason : "the view could not be read" };
  }
  const bytes = Buffer.byteLength(JSON.stringify(view), "utf8");
  if (bytes > maxBytes) return { ok: false, reason: `the view is over the size limit (${bytes} bytes, at most ${maxBytes})` };
  return { ok: true, view, bytes };
}

/**
 * The view a tool result's or an extension message's `details.view` holds,
 * when it is valid and within 64 KiB; otherwise none, and the item shows its
 * text alone. Live items and history read it the same way.
 */
export function detailsView(details: unknown): View | undefined {
  try {
    if (details === null || typeof details !== "object" || Array.isArray(details)) return undefined;
    const field = Object.getOwnPropertyDescriptor(details, "view");
    if (!field || !("value" in field) || field.value === undefined) return undefined;
    const checked = checkView(field.value, MAX_ITEM_VIEW_BYTES);
    return checked.ok ? checked.view : undefined;
  } catch {
    return undefined;
  }
}

/** The control with this id in a view, if it has one. */
export function findControl(view: View, id: string): ViewControl | undefined {
  if ("children" in view) {
    for (const child of view.children) {
      const found = findControl(child, id);
      if (found) return found;
    }
    return undefined;
  }
  return "id" in view && view.id === id ? view : undefined;
}

/** Why a value does not fit a control (`ui/event`), or undefined when it does. */
export function misfit(control: ViewControl, value: string | boolean | undefined): string | undefined {
  switch (control.type) {
    case "button":
      return value === undefined ? undefined : "a button takes no value";
    case "toggle":
      return typeof value === "boolean" ? undefined : "a toggle takes a boolean";
    case "select":
      return typeof value === "string" && control.options.includes(value) ? undefined : "a select takes one of its options";
    case "textField":
      return typeof value === "string" ? undefined : "a text field takes a string";
  }
}
