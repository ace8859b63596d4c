// What a schema's values are, in words: for the messages that reject a value
// and for the docs' tables. A schema may say it itself with `expected` (for a
// message) and `title` (for a table); otherwise the words come from its type.
import type { TSchema } from "typebox";

interface Node {
  type?: string;
  const?: unknown;
  anyOf?: Node[];
  minLength?: number;
  minimum?: number;
  title?: string;
  expected?: string;
}

const isNull = (node: Node) => node.type === "null";
const literals = (node: Node): unknown[] | undefined =>
  node.anyOf?.every((member) => member.const !== undefined) ? node.anyOf.map((member) => member.const) : undefined;
/** The other member of a `X | null` union. */
const nullableOf = (node: Node): Node | undefined =>
  node.anyOf?.length === 2 && node.anyOf.some(isNull) ? node.anyOf.find((member) => !isNull(member)) : undefined;

function describeType(node: Node, words: { string: (node: Node) => string; boolean: string; count: string }): string | undefined {
  if (node.type === "string") return words.string(node);
  if (node.type === "boolean") return words.boolean;
  if (node.type === "integer" && node.minimum === 0) return words.count;
  return undefined;
}

/** What a value must be, as a message puts it: "must be <expected(schema)>". */
export function expected(schema: TSchema): string {
  const node = schema as Node;
  if (node.expected !== undefined) return node.expected;
  const inner = nullableOf(node);
  if (inner !== undefined) return `${expected(inner as TSchema)} or null`;
  const values = literals(node);
  if (values !== undefined) return `one of ${values.map((value) => JSON.stringify(value)).join(", ")}`;
  const words = describeType(node, {
    string: (n) => ((n.minLength ?? 0) > 0 ? "a non-empty string" : "a string"),
    boolean: "true or false",
    count: "an integer >= 0",
  });
  if (words === undefined) throw new Error(`no words for the schema ${JSON.stringify(schema)}`);
  return words;
}

/** A value's type as a docs table names it. */
export function typeTitle(schema: TSchema): string {
  const node = schema as Node;
  if (node.title !== undefined) return node.title;
  const inner = nullableOf(node);
  if (inner !== undefined) return `${typeTitle(inner as TSchema)} or null`;
  const values = literals(node);
  if (values !== undefined) {
    const shown = values.map((value) => `\`${JSON.stringify(value)}\``);
    return shown.length === 1 ? shown[0]! : `${shown.slice(0, -1).join(", ")} or ${shown.at(-1)}`;
  }
  const words = describeType(node, { string: () => "string", boolean: "boolean", count: "integer >= 0" });
  if (words === undefined) throw new Error(`no title for the schema ${JSON.stringify(schema)}`);
  return words;
}
