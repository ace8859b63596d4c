import type { Random } from "./random.js";

/*
 * Random declarative views for the fuzz tests, and a checker of the view
 * format written apart from the server's (src/ui/views.ts), so that neither
 * is the judge of the other. Trees are mostly close to valid, so that both
 * verdicts occur, with every kind of fault mixed in: unknown types, wrong
 * field types, extra and missing fields, repeated ids, deep nesting, huge
 * strings and arrays, and, when `hostile`, objects that are not plain data
 * (cycles, getters that throw, proxies, symbols, BigInt, class instances).
 */

const LEAF_TYPES = ["text", "button", "toggle", "select", "textField"] as const;
const CONTAINER_TYPES = ["stack", "list"] as const;

export interface TreeOptions {
  /** Objects that are not plain JSON data may appear. */
  hostile: boolean;
  /** How many containers deep the generator may go. */
  maxDepth: number;
}

class TreeMaker {
  private ids = 0;
  /** Nodes left to make: a tree stays small enough to build, however its branches fall. */
  private nodesLeft = 5000;

  constructor(
    private readonly random: Random,
    private readonly options: TreeOptions,
  ) {}

  private text(): string {
    const r = this.random;
    if (r.chance(0.02)) return "x".repeat(r.int(70_000));
    if (r.chance(0.05)) return "\u001b[31mred\u001b[0m \u{1F600} \ud800 line\nbreak";
    return r.pick(["", "a", "hello world", "ünïcödé", "  spaced  ", "<b>not html</b>"]);
  }

  private id(): string {
    const r = this.random;
    if (r.chance(0.04)) return "dup";
    if (r.chance(0.01)) return "";
    return `c${this.ids++}`;
  }

  /** A value of a wrong type for a field, or with the hostile option, something stranger. */
  private wrong(): unknown {
    const r = this.random;
    const plain = [null, 42, true, ["a"], { a: 1 }, "", -0];
    if (!this.options.hostile || r.chance(0.5)) return r.pick(plain);
    return r.pick<() => unknown>([() => BigInt(7), () => Symbol("s"), () => () => "function", () => new Date(0), () => new Map()])();
  }

  node(depth: number): unknown {
    const r = this.random;
    this.nodesLeft--;
    const containerChance = depth < this.options.maxDepth && this.nodesLeft > 0 ? 0.45 : 0;
    const type = r.chance(containerChance)
      ? r.pick(CONTAINER_TYPES)
      : r.chance(0.03)
        ? r.pick(["html", "Text", "image", "", "constructor"])
        : r.pick(LEAF_TYPES);
    const node: Record<string, unknown> = { type };
    switch (type) {
      case "stack":
      case "list": {
        // A long list is of leaves only.
        const long = r.chance(0.02);
        const count = long ? 300 + r.int(3000) : r.int(4);
        node.children = Array.from({ length: count }, () => this.node(long ? this.options.maxDepth : depth + 1));
        if (type === "stack" && r.chance(0.5)) node.direction = r.chance(0.9) ? r.pick(["vertical", "horizontal"]) : "diagonal";
        break;
      }
      case "text":
        node.text = this.text();
        break;
      case "button":
        node.id = this.id();
        node.label = this.text();
        break;
      case "toggle":
        node.id = this.id();
        node.label = this.text();
        node.value = r.chance(0.95) ? r.chance(0.5) : "true";
        break;
      case "select": {
        node.id = this.id();
        const options = Array.from({ length: r.int(4) }, (_, i) => `o${i}`);
        node.options = options;
        if (r.chance(0.6)) node.value = r.chance(0.9) && options.length > 0 ? r.pick(options) : "elsewhere";
        if (r.chance(0.5)) node.label = this.text();
        break;
      }
      case "textField":
        node.id = this.id();
        if (r.chance(0.5)) node.value = this.text();
        if (r.chance(0.3)) node.placeholder = this.text();
        if (r.chance(0.3)) node.label = this.text();
        break;
      default:
        node.text = "unknown";
    }
    this.spoil(node);
    return node;
  }

  /** Sometimes breaks a node: a field of the wrong type, an extra one, a missing one, an undefined one. */
  private spoil(node: Record<string, unknown>): void {
    const r = this.random;
    if (!r.chance(0.06)) return;
    const keys = Object.keys(node);
    switch (r.int(this.options.hostile ? 8 : 4)) {
      case 0:
        node[r.pick(keys)] = this.wrong();
        break;
      case 1:
        node[r.pick(["onclick", "style", "html", "__proto__x"])] = "extra";
        break;
      case 2:
        delete node[r.pick(keys)];
        break;
      case 3:
        node[r.pick(["label", "placeholder", "value", "direction"])] = undefined;
        break;
      case 4:
        Object.defineProperty(node, r.pick(keys), {
          enumerable: true,
          get() {
            throw new Error("getter");
          },
        });
        break;
      case 5:
        if ("children" in node && Array.isArray(node.children)) (node.children as unknown[]).push(node);
        else (node as Record<PropertyKey, unknown>)[Symbol("s")] = 1;
        break;
      case 6:
        Object.setPrototypeOf(node, r.chance(0.5) ? null : { inherited: true });
        break;
      default: {
        const proxy = new Proxy(node, {
          ownKeys: () => {
            throw new Error("ownKeys");
          },
        });
        if ("children" in node && Array.isArray(node.children)) (node.children as unknown[]).push(proxy);
        else node.extra = proxy;
      }
    }
  }
}

/** One random tree; the same seed gives the same tree. */
export function randomView(random: Random, options: TreeOptions): unknown {
  const maker = new TreeMaker(random, options);
  if (random.chance(0.02)) return random.pick<unknown>(["text", null, 3, [], [{ type: "text", text: "a" }]]);
  if (options.hostile && random.chance(0.02)) {
    const poisoned = JSON.parse('{"type":"text","text":"a","__proto__":{"polluted":true}}') as unknown;
    return poisoned;
  }
  return maker.node(0);
}

const FIELDS: Record<string, { required: string[]; optional: string[] }> = {
  stack: { required: ["children"], optional: ["direction"] },
  list: { required: ["children"], optional: [] },
  text: { required: ["text"], optional: [] },
  button: { required: ["id", "label"], optional: [] },
  toggle: { required: ["id", "label", "value"], optional: [] },
  select: { required: ["id", "options"], optional: ["value", "label"] },
  textField: { required: ["id"], optional: ["value", "placeholder", "label"] },
};

/**
 * Whether JSON data is a valid view within `maxBytes`, judged on its JSON
 * text: parsed again, so nothing but data can be seen.
 */
export function isValidViewJson(json: string, maxBytes: number): boolean {
  if (Buffer.byteLength(json, "utf8") > maxBytes) return false;
  const ids = new Set<string>();
  const valid = (node: unknown, containersAbove: number): boolean => {
    if (typeof node !== "object" || node === null || Array.isArray(node)) return false;
    const record = node as Record<string, unknown>;
    const type = record.type;
    if (typeof type !== "string" || !Object.hasOwn(FIELDS, type)) return false;
    const { required, optional } = FIELDS[type]!;
    for (const key of Object.keys(record)) if (key !== "type" && !required.includes(key) && !optional.includes(key)) return false;
    for (const key of required) if (!Object.hasOwn(record, key)) return false;
    const isString = (key: string) => !Object.hasOwn(record, key) || typeof record[key] === "string";
    if ("id" in record) {
      if (typeof record.id !== "string" || record.id.length === 0 || ids.has(record.id)) return false;
      ids.add(record.id);
    }
    switch (type) {
      case "stack":
      case "list":
        if (containersAbove + 1 > 8) return false;
        if (type === "stack" && "direction" in record && record.direction !== "vertical" && record.direction !== "horizontal") return false;
        return Array.isArray(record.children) && record.children.every((child) => valid(child, containersAbove + 1));
      case "toggle":
        return isString("label") && typeof record.value === "boolean";
      case "select":
        return (
          Array.isArray(record.options) &&
          record.options.every((o) => typeof o === "string") &&
          isString("label") &&
          isString("value") &&
          (!("value" in record) || (record.options as string[]).includes(record.value as string))
        );
      default:
        return ["text", "label", "value", "placeholder"].every(isString);
    }
  };
  return valid(JSON.parse(json), 0);
}
