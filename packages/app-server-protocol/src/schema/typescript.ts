/**
 * Writes the protocol's shapes as plain TypeScript (`src/generated/types.ts`)
 * from the generated JSON schema, so a client's editor shows plain object
 * types and unions rather than schema-builder generics.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const SECTIONS = [
  ["clientRequests", "ClientRequests"],
  ["clientNotifications", "ClientNotifications"],
  ["serverRequests", "ServerRequests"],
  ["serverNotifications", "ServerNotifications"],
] as const;

/** Written once by hand: the envelopes in `types.ts`, the error codes in `errors.ts`. */
const SKIPPED_DEFS = new Set(["ClientMessage", "ServerMessage", "ResultResponse", "ErrorResponse", "ErrorCode"]);

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `item/toolCall/requestApproval` → `ItemToolCallRequestApproval`. */
export function methodTypeName(method: string): string {
  return method
    .split("/")
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join("");
}

function isObject(node: Json): node is JsonObject {
  return node !== null && typeof node === "object" && !Array.isArray(node);
}

function comment(text: Json | undefined, indent: string): string[] {
  if (typeof text !== "string" || text.length === 0) return [];
  return [`${indent}/** ${text.replaceAll("*/", "*\\/").replaceAll("\n", " ")} */`];
}

function refName(ref: string): string {
  const match = /^#\/\$defs\/([A-Za-z0-9_]+)$/.exec(ref);
  if (!match) throw new Error(`cannot write a type for $ref ${ref}`);
  return match[1]!;
}

function typeOf(node: Json, indent: string): string {
  if (!isObject(node)) throw new Error(`not a schema: ${JSON.stringify(node)}`);
  if (typeof node.$ref === "string") return refName(node.$ref);
  if (node.const !== undefined) return JSON.stringify(node.const);
  if (Array.isArray(node.anyOf)) return node.anyOf.map((member) => typeOf(member, indent)).join(" | ");
  switch (node.type) {
    case "string":
      return "string";
    case "number":
    case "integer":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array": {
      const item = node.items === undefined ? "unknown" : typeOf(node.items, indent);
      return /^[A-Za-z0-9_"]+$/.test(item) ? `${item}[]` : `Array<${item}>`;
    }
    case "object":
      return objectType(node, indent);
    case undefined:
      if (Object.keys(node).every((key) => key === "description")) return "unknown";
  }
  throw new Error(`cannot write a type for ${JSON.stringify(node)}`);
}

function objectType(node: JsonObject, indent: string): string {
  const properties = isObject(node.properties ?? null) ? (node.properties as JsonObject) : undefined;
  if (properties === undefined || Object.keys(properties).length === 0) {
    if (node.additionalProperties === false && node.patternProperties === undefined) return "Record<string, never>";
    const patterns = isObject(node.patternProperties ?? null) ? Object.values(node.patternProperties as JsonObject) : [];
    const value = patterns.length === 1 ? typeOf(patterns[0]!, indent) : "unknown";
    return `Record<string, ${value}>`;
  }
  return `{\n${propertyLines(node, properties, indent + "  ").join("\n")}\n${indent}}`;
}

function propertyLines(node: JsonObject, properties: JsonObject, indent: string): string[] {
  const required = new Set(Array.isArray(node.required) ? node.required : []);
  const lines: string[] = [];
  for (const [name, schema] of Object.entries(properties)) {
    const key = IDENTIFIER.test(name) ? name : JSON.stringify(name);
    lines.push(...comment(isObject(schema) ? schema.description : undefined, indent));
    lines.push(`${indent}${key}${required.has(name) ? "" : "?"}: ${typeOf(schema, indent)};`);
  }
  return lines;
}

/**
 * One named declaration. Objects are written as type aliases of object
 * literals, not interfaces, so they stay assignable to `Record<string, unknown>`
 * as the schema-derived types were.
 */
function declaration(name: string, node: Json, description: Json | undefined): string[] {
  const lines = comment(description, "");
  lines.push(`export type ${name} = ${typeOf(node, "")};`);
  return lines;
}

/** The text of `src/generated/types.ts` for a schema document built by buildJsonSchema. */
export function renderTypeScript(schema: JsonObject): string {
  const out = [
    "// Generated from the protocol table by `npm run generate:schema` in packages/app-server-protocol; do not edit.",
    "// Every shape the protocol carries, as plain interfaces and unions.",
    "",
    'import type { ErrorCode } from "../errors.js";',
    "",
    "export type { ErrorCode };",
  ];
  const names = new Set<string>();
  const claim = (name: string) => {
    if (names.has(name)) throw new Error(`two generated types are named ${name}`);
    names.add(name);
  };
  const defs = schema.$defs as JsonObject;
  for (const [name, def] of Object.entries(defs)) {
    if (SKIPPED_DEFS.has(name)) continue;
    claim(name);
    out.push("", ...declaration(name, def, isObject(def) ? def.description : undefined));
  }
  for (const [section, mapName] of SECTIONS) {
    const entries = Object.entries(schema[section] as JsonObject);
    out.push("", `// ${mapName}`);
    const mapLines: string[] = [];
    for (const [method, entry] of entries) {
      if (!isObject(entry)) continue;
      const base = methodTypeName(method);
      claim(`${base}Params`);
      out.push("", ...declaration(`${base}Params`, entry.params!, `Params of \`${method}\`: ${String(entry.description)}`));
      if (entry.result !== undefined) {
        claim(`${base}Result`);
        out.push("", ...declaration(`${base}Result`, entry.result, `Result of \`${method}\`.`));
        mapLines.push(`  ${JSON.stringify(method)}: { params: ${base}Params; result: ${base}Result };`);
      } else {
        mapLines.push(`  ${JSON.stringify(method)}: { params: ${base}Params };`);
      }
    }
    claim(mapName);
    out.push("", `/** Params${mapName.endsWith("Requests") ? " and result" : ""} of every method in ${section}, by method name. */`);
    out.push(`export interface ${mapName} {`, ...mapLines, "}");
  }
  return out.join("\n") + "\n";
}
