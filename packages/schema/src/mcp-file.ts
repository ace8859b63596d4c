// mcp.json, global (`<agentDir>/mcp.json`) or a trusted project's
// (`.knightcode/mcp.json`): `{"mcpServers": {"<name>": <entry>}}`. Entries
// are strict, so a misspelt field never goes unnoticed.
import { type Static, type TSchema, Type } from "typebox";
import { McpExposure } from "./mcp.js";

export const MAX_SERVER_NAME = 32;
export const SERVER_NAME_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$";
const MAX_TEXT = 8192;
const ENV_NAME = "^[A-Za-z_][A-Za-z0-9_]{0,127}$";
const HEADER_NAME = "^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$";

/** A string of at most `max` characters without a NUL, each rule with its words, and any further rules after them. */
function text(max = MAX_TEXT, ...more: TSchema[]) {
  return Type.Unsafe<string>(
    Type.Intersect([
      Type.String({ maxLength: max, problem: "must be a string", problems: { maxLength: `is longer than ${max} characters` } }),
      Type.String({ pattern: "^[^\\u0000]*$", problem: "contains a NUL character" }),
      ...more,
    ]),
  );
}
const notEmpty = Type.String({ pattern: "\\S", problem: "must not be empty" });

function stringMap<V extends TSchema>(keyPattern: string, keyWhat: string, value: V) {
  return Type.Record(Type.String({ pattern: keyPattern }), value, {
    additionalProperties: false,
    maxProperties: 128,
    problem: "must be an object of strings",
    problems: { maxProperties: "has more than 128 entries" },
    unknownKey: `: {shortKey} is not ${keyWhat}`,
  });
}

/** Fields every entry may have; a project entry with only these changes the global server of its name. */
const common = {
  enabled: Type.Optional(Type.Boolean({ problem: "must be true or false" })),
  exposure: Type.Optional({ ...McpExposure, problem: `must be one of ${McpExposure.anyOf.map((member) => member.const).join(", ")}` }),
  description: Type.Optional(text(1000)),
};

export const McpStdioEntry = Type.Object(
  {
    command: text(MAX_TEXT, notEmpty),
    ...common,
    args: Type.Optional(Type.Array(text(), { maxItems: 256, problem: "must be an array of strings", problems: { maxItems: "has more than 256 items" } })),
    env: Type.Optional(stringMap(ENV_NAME, "an environment variable name", text())),
    cwd: Type.Optional(text(4096, Type.String({ minLength: 1, problem: "must not be empty" }))),
  },
  { additionalProperties: false },
);
export type McpStdioEntry = Static<typeof McpStdioEntry>;

const McpAuth = Type.Object(
  { bearerTokenEnv: text(128, Type.String({ pattern: ENV_NAME, problem: "must name an environment variable" })) },
  { additionalProperties: false, problem: 'must be an object {"bearerTokenEnv": "<variable>"}', unknownKey: ": unknown field {shortKey}" },
);

const http = {
  url: text(),
  ...common,
  headers: Type.Optional(stringMap(HEADER_NAME, "a header name", text(MAX_TEXT, Type.String({ pattern: "^[^\\r\\n]*$", problem: "contains a line break" })))),
};

/** `auth` in the global file only: a project file could otherwise send the user's token to any address it names. */
export const McpHttpEntry = Type.Object({ ...http, auth: Type.Optional(McpAuth) }, { additionalProperties: false });
export type McpHttpEntry = Static<typeof McpHttpEntry>;
export const McpProjectHttpEntry = Type.Object(
  { ...http, auth: Type.Optional(Type.Never({ problem: "is allowed only in the global mcp.json" })) },
  { additionalProperties: false },
);

/** A project entry naming a global server with neither `command` nor `url`. */
export const McpOverrideEntry = Type.Object(common, {
  additionalProperties: false,
  problem: "a server entry must be an object",
  unknownKey: "unknown field {shortKey}",
});
export type McpOverrideEntry = Static<typeof McpOverrideEntry>;

/** The file around the entries; each entry is checked on its own, so one bad entry is skipped alone. */
export const McpFileShape = Type.Object(
  { mcpServers: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { ofParent: true, problem: '"mcpServers" must be an object' })) },
  { problem: "must hold a JSON object" },
);
