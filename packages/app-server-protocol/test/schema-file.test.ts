import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { buildJsonSchema, exampleParams, methodFields, protocol, renderTypeScript } from "../src/schema/index.js";
import { ERROR_CODES } from "../src/errors.js";
import { ProtocolSchema } from "../src/index.js";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

test("the checked-in app-server.schema.json matches the protocol table", () => {
  const checkedIn = readFileSync(here("../../app-server.schema.json"), "utf8");
  const fresh = JSON.stringify(buildJsonSchema(protocol), null, 2) + "\n";
  assert.ok(checkedIn === fresh, "app-server.schema.json is stale: run `npm run generate:schema` in packages/app-server-protocol");
});

test("the checked-in src/generated/types.ts matches the protocol table", () => {
  const checkedIn = readFileSync(here("../../src/generated/types.ts"), "utf8");
  const fresh = renderTypeScript(buildJsonSchema(protocol));
  assert.ok(checkedIn === fresh, "src/generated/types.ts is stale: run `npm run generate:schema` in packages/app-server-protocol");
});

test("every params and result field in docs/methods.md has a description", () => {
  const undocumented = methodFields(protocol)
    .filter(({ row }) => row.description.trim() === "")
    .map(({ method, part, row }) => `${method} ${part}.${row.path}`);
  assert.deepEqual(undocumented, []);
});

test("every example in docs/methods.md is valid params for its method", () => {
  const schema = ProtocolSchema.load();
  for (const section of ["clientRequests", "clientNotifications", "serverRequests", "serverNotifications"] as const) {
    for (const method of Object.keys(protocol[section])) {
      const problem = schema.check(section, method, "params", exampleParams(protocol, section, method));
      assert.equal(problem, undefined, `${method}: ${problem}`);
    }
  }
});

test("every method of the table is in the schema the server runs on", () => {
  const schema = ProtocolSchema.load();
  for (const section of ["clientRequests", "clientNotifications", "serverRequests", "serverNotifications"] as const) {
    assert.deepEqual(schema.methods(section).sort(), Object.keys(protocol[section]).sort(), section);
  }
});

test("every method is documented and lists only known error codes", () => {
  const doc = buildJsonSchema(protocol) as Record<string, Record<string, { description: string; errors?: string[] }>>;
  const known: readonly string[] = ERROR_CODES;
  for (const section of ["clientRequests", "serverRequests"]) {
    for (const [method, entry] of Object.entries(doc[section]!)) {
      assert.ok(entry.description.length > 10, `${method} has no doc line`);
      assert.ok(Array.isArray(entry.errors), `${method} lists its errors`);
      for (const code of entry.errors) assert.ok(known.includes(code), `${method} lists ${JSON.stringify(code)}, which is not in ERROR_CODES`);
      assert.equal(new Set(entry.errors).size, entry.errors.length, `${method} lists an error code twice`);
    }
  }
  // The codes an error response may carry are exactly these, and an error object's code is one of them.
  const defs = (doc as unknown as { $defs: Record<string, { anyOf?: { const?: unknown }[]; properties?: Record<string, unknown> }> }).$defs;
  assert.ok(defs.ErrorCode?.anyOf, "$defs.ErrorCode is a union of its codes");
  assert.deepEqual(
    defs.ErrorCode.anyOf.map((member) => member.const),
    [...ERROR_CODES],
  );
  assert.deepEqual(defs.ErrorObject?.properties?.code, { $ref: "#/$defs/ErrorCode" });
});

test("method names follow domain/verb or the handshake's names", () => {
  for (const section of ["clientRequests", "clientNotifications", "serverRequests", "serverNotifications"] as const) {
    for (const method of Object.keys(protocol[section])) {
      assert.match(method, /^(initialize|initialized|error|warning|[a-z][a-zA-Z]*(\/[a-z][a-zA-Z]*)+)$/, method);
    }
  }
});
