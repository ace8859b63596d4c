import { COMMON_ERROR_CODES } from "../errors.js";
import { buildJsonSchema } from "./generate.js";
import type { Protocol } from "./table.js";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const SECTIONS = [
  ["clientRequests", "Client requests"],
  ["clientNotifications", "Client notifications"],
  ["serverRequests", "Server requests"],
  ["serverNotifications", "Server notifications"],
] as const;

/** One row of a method's field table. */
export interface FieldRow {
  /** Dotted from the params or result object: `options[].label`. */
  path: string;
  type: string;
  required: boolean;
  description: string;
}

function isObject(node: Json | undefined): node is JsonObject {
  return node !== null && node !== undefined && typeof node === "object" && !Array.isArray(node);
}

class Reference {
  constructor(private readonly defs: JsonObject) {}

  /** The schema a `$ref` names, or the node itself. */
  resolve(node: Json | undefined): JsonObject | undefined {
    if (!isObject(node)) return undefined;
    if (typeof node.$ref === "string" && node.$ref.startsWith("#/$defs/")) return this.resolve(this.defs[node.$ref.slice(8)]);
    return node;
  }

  /** A union branch's tag as `kind "select"`, from its first literal field; "" when it has none. */
  tag(node: Json | undefined): string {
    const object = this.resolve(node);
    if (!object || !isObject(object.properties)) return "";
    for (const [name, schema] of Object.entries(object.properties)) {
      if (isObject(schema) && schema.const !== undefined) return `${name} ${JSON.stringify(schema.const)}`;
    }
    return "";
  }

  /** A short type for a table cell: a named shape by name, an inline object as `object`. */
  typeText(node: Json | undefined): string {
    if (!isObject(node)) return "unknown";
    if (typeof node.$ref === "string") return node.$ref.slice(node.$ref.lastIndexOf("/") + 1);
    if (node.const !== undefined) return JSON.stringify(node.const);
    if (Array.isArray(node.anyOf)) return node.anyOf.map((member) => this.typeText(member)).join(" \\| ");
    if (node.type === "array") return `${this.typeText(node.items)}[]`;
    if (node.type === "integer") return "integer";
    if (node.type === "object") return isObject(node.properties) ? "object" : "map";
    return typeof node.type === "string" ? node.type : "unknown";
  }

  /** The fields of an object schema, with the fields of inline objects (and arrays of them) below their parent. */
  rows(node: Json | undefined, prefix = ""): FieldRow[] {
    const object = this.resolve(node);
    if (!object) return [];
    if (Array.isArray(object.anyOf)) {
      // A union of objects (a dialog's kinds): every branch's fields, each once.
      // A union of objects (a dialog's kinds): every branch's fields, each once; a field that only some
      // branches have names them by their literal tag (`kind`, `type`).
      const branches = object.anyOf.map((member) => ({ tag: this.tag(member), rows: this.rows(member, prefix) }));
      const merged = new Map<string, FieldRow & { in: string[] }>();
      for (const { tag, rows } of branches) {
        for (const row of rows) {
          const seen = merged.get(row.path);
          if (!seen) merged.set(row.path, { ...row, in: [tag] });
          else {
            if (!seen.type.split(" \\| ").includes(row.type)) seen.type += ` \\| ${row.type}`;
            seen.required &&= row.required;
            if (seen.description === "") seen.description = row.description;
            seen.in.push(tag);
          }
        }
      }
      return [...merged.values()].map(({ in: tags, ...row }) =>
        tags.length === branches.length || tags.some((tag) => tag === "") ? row : { ...row, description: `Only for ${tags.join(", ")}. ${row.description}` },
      );
    }
    if (!isObject(object.properties)) return [];
    const required = new Set(Array.isArray(object.required) ? object.required : []);
    const out: FieldRow[] = [];
    for (const [name, schema] of Object.entries(object.properties)) {
      const own = isObject(schema) && typeof schema.description === "string" ? schema.description : undefined;
      const target = isObject(schema) && schema.type === "array" ? schema.items : schema;
      const named = this.resolve(target)?.description;
      out.push({
        path: prefix + name,
        type: this.typeText(schema),
        required: required.has(name),
        description: own ?? (typeof named === "string" ? named : ""),
      });
      if (isObject(schema) && schema.$ref === undefined) {
        if (schema.type === "object") out.push(...this.rows(schema, `${prefix}${name}.`));
        if (schema.type === "array" && isObject(schema.items) && schema.items.$ref === undefined) out.push(...this.rows(schema.items, `${prefix}${name}[].`));
      }
    }
    return out;
  }

  /** A schema as TypeScript reads it, unions as unions: `{type: "active"; waitingOn: ("approval" | "dialog")[]}`. */
  tsText(node: Json | undefined): string {
    if (!isObject(node)) return "unknown";
    if (typeof node.$ref === "string") return node.$ref.slice(node.$ref.lastIndexOf("/") + 1);
    if (node.const !== undefined) return JSON.stringify(node.const);
    if (Array.isArray(node.anyOf)) return node.anyOf.map((member) => this.tsText(member)).join(" | ");
    if (node.type === "array") {
      const items = this.tsText(node.items);
      return items.includes(" | ") ? `(${items})[]` : `${items}[]`;
    }
    if (node.type === "integer") return "number";
    if (node.type !== "object") return typeof node.type === "string" ? node.type : "unknown";
    if (!isObject(node.properties)) return `Record<string, ${this.tsText(node.additionalProperties)}>`;
    const required = new Set(Array.isArray(node.required) ? node.required : []);
    const fields = Object.entries(node.properties).map(([name, field]) => `${name}${required.has(name) ? "" : "?"}: ${this.tsText(field)}`);
    return fields.length === 0 ? "{}" : `{${fields.join("; ")}}`;
  }

  /**
   * Every named shape a table's type may name, each once: an object as its
   * field table, a union as the list of what it may be, each member by name
   * (linked) or as TypeScript reads it.
   */
  sharedTypes(link: (text: string) => string): string[] {
    const lines: string[] = [];
    for (const name of Object.keys(this.defs).sort()) {
      const node = this.defs[name];
      if (!isObject(node)) continue;
      lines.push("", `### ${name}`, "");
      if (typeof node.description === "string") lines.push(node.description, "");
      if (Array.isArray(node.anyOf)) {
        lines.push(
          "One of:",
          "",
          ...node.anyOf.map((member) => `- ${isObject(member) && typeof member.$ref === "string" ? link(this.tsText(member)) : `\`${this.tsText(member)}\``}`),
        );
      } else if (node.type === "object" && isObject(node.properties)) lines.push(...fieldTable(this.rows(node), link));
      else lines.push(`\`${this.tsText(node)}\``);
    }
    return lines;
  }

  /** A value the schema accepts, built from required fields only, for the examples. */
  example(node: Json | undefined, name: string): Json {
    const schema = this.resolve(node);
    if (!schema) return null;
    if (schema.const !== undefined) return schema.const;
    if (Array.isArray(schema.anyOf)) {
      const first = schema.anyOf.find((member) => this.resolve(member)?.type !== "null") ?? schema.anyOf[0];
      return this.example(first, name);
    }
    switch (schema.type) {
      case "string": {
        const pattern = typeof schema.pattern === "string" ? schema.pattern : "";
        if (pattern.includes("{64}|none")) return "none";
        if (pattern.includes("[0-9a-f]{40}")) return "0".repeat(40);
        return pattern === "" ? `<${name}>` : name;
      }
      case "integer":
      case "number":
        return typeof schema.minimum === "number" ? Math.max(schema.minimum, 1) : 1;
      case "boolean":
        return true;
      case "null":
        return null;
      case "array": {
        const count = typeof schema.minItems === "number" ? schema.minItems : 0;
        return Array.from({ length: count }, () => this.example(schema.items, name));
      }
      case "object": {
        const out: JsonObject = {};
        const properties = isObject(schema.properties) ? schema.properties : {};
        const required = Array.isArray(schema.required) ? schema.required : [];
        for (const field of required) if (typeof field === "string") out[field] = this.example(properties[field], field);
        return out;
      }
    }
    return {};
  }
}

/** Hand-written examples where the one built from the schema would say little. */
const EXAMPLES: Record<string, JsonObject> = {
  initialize: { clientInfo: { name: "my-client", version: "1.0.0" } },
  "thread/start": { cwd: "/home/me/project" },
  "turn/start": { threadId: "<threadId>", text: "Explain the build script." },
  "thread/read": { threadId: "<threadId>" },
  "model/list": {},
};

/** Every params and result field of every method, for the generator's check that each has a description. */
export function methodFields(protocol: Protocol): { method: string; part: "params" | "result"; row: FieldRow }[] {
  const schema = buildJsonSchema(protocol);
  const reference = new Reference(schema.$defs as JsonObject);
  const out: { method: string; part: "params" | "result"; row: FieldRow }[] = [];
  for (const [section] of SECTIONS) {
    for (const [method, entry] of Object.entries(schema[section] as JsonObject)) {
      if (!isObject(entry)) continue;
      for (const part of ["params", "result"] as const) {
        for (const row of reference.rows(entry[part])) out.push({ method, part, row });
      }
    }
  }
  return out;
}

/** The example params of one method as `docs/methods.md` shows them. */
export function exampleParams(protocol: Protocol, section: (typeof SECTIONS)[number][0], method: string): Json {
  const schema = buildJsonSchema(protocol);
  const entry = (schema[section] as JsonObject)[method];
  if (!isObject(entry)) throw new Error(`no method ${method} in ${section}`);
  return EXAMPLES[method] ?? new Reference(schema.$defs as JsonObject).example(entry.params, "params");
}

function cell(text: string): string {
  return text.replaceAll("|", "\\|").replaceAll("\n", " ");
}

/** The names of shared types in a table's type, linked to their section under "Shared types". */
function linker(defs: JsonObject): (text: string) => string {
  return (text) => text.replace(/\b[A-Z][A-Za-z0-9]*\b/g, (name) => (name in defs ? `[${name}](#${name.toLowerCase()})` : name));
}

function fieldTable(rows: FieldRow[], link: (text: string) => string = (text) => text): string[] {
  if (rows.length === 0) return ["No fields."];
  return [
    "| field | type | required | description |",
    "|---|---|---|---|",
    ...rows.map(
      (row) =>
        `| \`${row.path}\` | ${link(row.type.includes("\\|") ? row.type : cell(row.type))} | ${row.required ? "yes" : "no"} | ${cell(row.description)} |`,
    ),
  ];
}

/** Where the server answers each client request: a path from the repository root, by method. */
export type ServedBy = Readonly<Record<string, string>>;

/** A doc's first sentence, for an index line. */
function firstSentence(doc: string): string {
  const match = /^(.*?\.)(\s|$)/s.exec(doc);
  return match ? match[1]! : doc;
}

function requestIndex(entries: [string, JsonObject][], servedBy: ServedBy): string[] {
  return [
    "| method | what it does | served by |",
    "|---|---|---|",
    ...entries.map(([method, entry]) => {
      const file = servedBy[method];
      if (file === undefined) throw new Error(`no file serves ${method}`);
      return `| [\`${method}\`](#${method.replaceAll("/", "").toLowerCase()}) | ${cell(firstSentence(String(entry.description)))} | [\`${file}\`](../${file}) |`;
    }),
  ];
}

/**
 * The generated `docs/methods.md`: per method its doc line, fields, errors
 * and one example; with `servedBy`, each client request's file in the
 * server beside it.
 */
export function renderMethodReference(protocol: Protocol, servedBy?: ServedBy): string {
  const schema = buildJsonSchema(protocol);
  const reference = new Reference(schema.$defs as JsonObject);
  const link = linker(schema.$defs as JsonObject);
  const lines = [
    "# Method reference",
    "",
    "Generated from the protocol table in `packages/app-server-protocol` and the handlers under",
    "`packages/app-server/src/methods/` by `node scripts/methods.mjs`; do not edit by hand. The JSON Schema is `packages/app-server-protocol/app-server.schema.json`; the same",
    "shapes as TypeScript are exported by `@knightcode/app-server-protocol` (`src/generated/types.ts`).",
    "A type in a table that is a name (`Thread`, `HistoryItem`) is one of those shapes, described under [Shared types](#shared-types).",
    `Every request may also answer ${COMMON_ERROR_CODES.map((c) => `\`${c}\``).join(", ")}.`,
  ];
  for (const [section, title] of SECTIONS) {
    const entries = Object.entries(schema[section] as JsonObject).filter((entry): entry is [string, JsonObject] => isObject(entry[1]));
    lines.push("", `## ${title}`, "");
    if (entries.length === 0) {
      lines.push("None yet.");
      continue;
    }
    if (servedBy && section === "clientRequests") lines.push(...requestIndex(entries, servedBy));
    else lines.push(entries.map(([method]) => `[\`${method}\`](#${method.replaceAll("/", "").toLowerCase()})`).join(" · "));
    for (const [method, entry] of entries) {
      lines.push("", `### ${method}`, "", String(entry.description));
      if (servedBy && section === "clientRequests") lines.push("", `**Served by:** [\`${servedBy[method]}\`](../${servedBy[method]})`);
      lines.push("", "**Params**", "", ...fieldTable(reference.rows(entry.params), link));
      if (entry.result !== undefined) {
        lines.push("", "**Result**", "", ...fieldTable(reference.rows(entry.result), link));
        const errors = Array.isArray(entry.errors) ? entry.errors : [];
        lines.push("", `**Errors:** ${errors.length > 0 ? errors.map((code) => `\`${String(code)}\``).join(", ") : "only the common ones"}.`);
        const reasons = isObject(entry.reasons) ? Object.entries(entry.reasons) : [];
        if (reasons.length > 0) {
          lines.push("", "**`data.reason`**", "", "| reason | meaning |", "|---|---|");
          for (const [reason, meaning] of reasons) lines.push(`| \`${reason}\` | ${String(meaning)} |`);
        }
      }
      const params = EXAMPLES[method] ?? reference.example(entry.params, "params");
      const message = entry.result !== undefined ? { id: 1, method, params } : { method, params };
      lines.push("", "**Example**", "", "```json", JSON.stringify(message), "```");
    }
  }
  lines.push(
    "",
    "## Shared types",
    "",
    "The named shapes the tables above use. A union lists what it may be; a client tells them apart by the field whose value is fixed (`type`, `kind`).",
  );
  lines.push(...reference.sharedTypes(link));
  return lines.join("\n") + "\n";
}
