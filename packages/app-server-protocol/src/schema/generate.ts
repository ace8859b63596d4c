import { COMMON_ERROR_CODES } from "../errors.js";
import type { NotificationDef, RequestDef } from "./define.js";
import type { Protocol } from "./table.js";
import { ErrorObject, RequestId } from "./common.js";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const SECTIONS = ["clientRequests", "clientNotifications", "serverRequests", "serverNotifications"] as const;
type Section = (typeof SECTIONS)[number];

/**
 * Moves every sub-schema that carries a `$id` into `$defs` under that name and
 * leaves a `$ref` in its place, so shared shapes appear once in the file.
 */
class DefHoister {
  readonly defs: Record<string, Json> = {};

  hoist(node: unknown): Json {
    if (Array.isArray(node)) return node.map((item) => this.hoist(item));
    if (node === null || typeof node !== "object") return node as Json;
    const copy: JsonObject = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === "properties" || key === "patternProperties" || key === "$defs") {
        const map: JsonObject = {};
        for (const [name, sub] of Object.entries(value as object)) map[name] = this.hoist(sub);
        copy[key] = map;
      } else {
        copy[key] = this.hoist(value);
      }
    }
    const name = copy.$id;
    if (typeof name !== "string") return copy;
    delete copy.$id;
    const existing = this.defs[name];
    if (existing !== undefined && JSON.stringify(existing) !== JSON.stringify(copy)) {
      throw new Error(`two different schemas are named ${name}`);
    }
    this.defs[name] = copy;
    return { $ref: `#/$defs/${name}` };
  }
}

function envelope(method: string, params: Json, withId: boolean): JsonObject {
  const properties: JsonObject = { method: { const: method }, params };
  if (withId) properties.id = { $ref: "#/$defs/RequestId" };
  return {
    type: "object",
    required: withId ? ["id", "method", "params"] : ["method", "params"],
    properties,
    additionalProperties: false,
  };
}

/** The checked-in `app-server.schema.json`: every message of the protocol. */
export function buildJsonSchema(protocol: Protocol): JsonObject {
  const hoister = new DefHoister();
  // The envelopes refer to these whether or not a method does.
  hoister.hoist(RequestId);
  hoister.hoist(ErrorObject);
  const sections: Record<Section, JsonObject> = {
    clientRequests: {},
    clientNotifications: {},
    serverRequests: {},
    serverNotifications: {},
  };
  const envelopes: Record<"client" | "server", Json[]> = { client: [], server: [] };
  for (const section of SECTIONS) {
    const entries = Object.entries(protocol[section] as Record<string, RequestDef | NotificationDef>);
    for (const [method, def] of entries.sort(([a], [b]) => a.localeCompare(b))) {
      const params = hoister.hoist(def.params);
      const entry: JsonObject = { description: def.doc, params };
      if (def.kind === "request") {
        entry.result = hoister.hoist(def.result);
        entry.errors = [...def.errors];
        if (Object.keys(def.reasons).length > 0) entry.reasons = { ...def.reasons };
      }
      sections[section][method] = entry;
      const pointer = `#/${section}/${method.replaceAll("~", "~0").replaceAll("/", "~1")}/params`;
      const side = section.startsWith("client") ? "client" : "server";
      envelopes[side].push(envelope(method, { $ref: pointer }, def.kind === "request"));
    }
  }
  const defs = hoister.defs;
  defs.ResultResponse = {
    type: "object",
    required: ["id", "result"],
    properties: { id: { $ref: "#/$defs/RequestId" }, result: {} },
    additionalProperties: false,
  };
  defs.ErrorResponse = {
    type: "object",
    required: ["id", "error"],
    properties: { id: { $ref: "#/$defs/RequestId" }, error: { $ref: "#/$defs/ErrorObject" } },
    additionalProperties: false,
  };
  const response: Json[] = [{ $ref: "#/$defs/ResultResponse" }, { $ref: "#/$defs/ErrorResponse" }];
  defs.ClientMessage = { anyOf: [...envelopes.client, ...response] };
  defs.ServerMessage = { anyOf: [...envelopes.server, ...response] };
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "KnightCode app-server protocol",
    description:
      "Every message of `knightcode app-server`. Messages are JSON-RPC 2.0 shapes without the jsonrpc field. " +
      "Per method: params, result and the method-specific error codes; every method may also answer " +
      `${COMMON_ERROR_CODES.join(", ")}. $defs.ClientMessage and $defs.ServerMessage validate one message of each direction.`,
    $defs: defs,
    ...sections,
  };
}
