import assert from "node:assert/strict";
import { test } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import { ProtocolSchema, SchemaCompiler, formatPath } from "../src/index.js";
import { buildJsonSchema, protocol } from "../src/schema/index.js";

function check(schema: object, value: unknown, root: object = schema): string | undefined {
  const found = new SchemaCompiler(root).compile(schema as never)(value, []);
  return found ? `${formatPath("params", found.path)} ${found.message}` : undefined;
}

test("messages name the failing field", () => {
  const schema = ProtocolSchema.load();
  assert.equal(schema.check("clientRequests", "initialize", "params", { clientInfo: { name: 5 } }), "params.clientInfo.name must be a string, not a number");
  assert.equal(schema.check("clientRequests", "initialize", "params", {}), "params.clientInfo is required");
  assert.equal(schema.check("clientRequests", "initialize", "params", { clientInfo: { name: "x" }, extra: 1 }), 'params has an unknown field "extra"');
  assert.equal(
    schema.check("clientRequests", "initialize", "params", { clientInfo: { name: "x" }, capabilities: { optOutNotifications: Array(257).fill("a") } }),
    "params.capabilities.optOutNotifications must have at most 256 items",
  );
  assert.equal(
    schema.check("clientRequests", "initialize", "params", { clientInfo: { name: "x" }, capabilities: { optOutNotifications: ["a", 7] } }),
    "params.capabilities.optOutNotifications[1] must be a string, not a number",
  );
  assert.equal(schema.check("clientRequests", "server/diagnostics", "params", []), "params must be an object, not an array");
  assert.equal(schema.check("clientRequests", "server/diagnostics", "params", null), "params must be an object, not null");
});

test("a hostile field name is shortened in the message", () => {
  const schema = ProtocolSchema.load();
  const message = schema.check("clientRequests", "server/diagnostics", "params", { ["x".repeat(100_000)]: 1 })!;
  assert.ok(message.length < 200, message);
});

test("string lengths count code points, as JSON Schema does", () => {
  const schema = { type: "string", minLength: 2, maxLength: 3 };
  assert.equal(check(schema, "😀😀😀"), undefined);
  assert.match(check(schema, "😀😀😀😀")!, /at most 3/);
  assert.match(check(schema, "😀")!, /at least 2/);
});

test("integers are whole numbers, as JSON Schema has them, and numbers finite", () => {
  assert.match(check({ type: "integer" }, 1.5)!, /must be an integer/);
  assert.equal(check({ type: "integer" }, 2 ** 60), undefined);
  assert.match(check({ type: "integer", maximum: 2 ** 53 }, 2 ** 60)!, /at most/);
  assert.match(check({ type: "number" }, Infinity)!, /must be a number/);
  assert.equal(check({ type: "number" }, -0.5), undefined);
});

test("unions report the branch that got furthest, or the allowed forms", () => {
  const union = {
    anyOf: [
      { type: "object", required: ["path"], properties: { path: { type: "string" } }, additionalProperties: false },
      { type: "object", required: ["data", "mimeType"], properties: { data: { type: "string" }, mimeType: { type: "string" } }, additionalProperties: false },
    ],
  };
  assert.equal(check(union, { path: 3 }), "params.path must be a string, not a number");
  assert.match(check({ anyOf: [{ const: "a" }, { const: "b" }] }, "c")!, /must be one of "a", "b"/);
  assert.match(check({ anyOf: [{ type: "string" }, { type: "number" }] }, true)!, /must be a string or a number/);
});

test("an unsupported keyword is refused when compiling, never ignored", () => {
  assert.throws(() => check({ type: "string", format: "email" }, "x"), /unsupported schema keyword format/);
  assert.throws(() => check({ type: "strin" }, "x"), /unsupported schema type/);
});

/** A small seeded generator of JSON values, biased towards the shapes a schema expects. */
function makeRandom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const scalar = (): unknown => pick([null, true, false, 0, -1, 1.5, 2 ** 53, "", "x", "😀", "a".repeat(300), "\u2028"]);
  const fromSchema = (schema: any, root: any, depth: number): unknown => {
    if (depth > 6 || schema === true || schema === undefined) return scalar();
    if (next() < 0.1) return scalar();
    if (schema.$ref) {
      const target = schema.$ref
        .slice(2)
        .split("/")
        .reduce((node: any, part: string) => node[part.replaceAll("~1", "/").replaceAll("~0", "~")], root);
      return fromSchema(target, root, depth + 1);
    }
    if (schema.anyOf) return fromSchema(pick(schema.anyOf), root, depth + 1);
    if ("const" in schema) return schema.const;
    if (schema.enum) return pick(schema.enum);
    switch (schema.type) {
      case "object": {
        const out: Record<string, unknown> = {};
        for (const [key, sub] of Object.entries(schema.properties ?? {})) {
          if ((schema.required ?? []).includes(key) ? next() < 0.95 : next() < 0.5) out[key] = fromSchema(sub, root, depth + 1);
        }
        if (next() < 0.1) out[pick(["extra", "__proto__", "constructor"])] = scalar();
        return out;
      }
      case "array": {
        const length = pick([0, 1, 2, 3, (schema.maxItems ?? 3) + 1]);
        return Array.from({ length }, () => fromSchema(schema.items, root, depth + 1));
      }
      case "string": {
        const max = schema.maxLength ?? 10;
        return pick(["", "a", "😀".repeat(Math.min(max, 50)), "x".repeat(Math.min(max + 1, 400)), "ok"]);
      }
      case "integer":
        return pick([0, 1, -1, 1.5, 2 ** 53, schema.minimum ?? 0]);
      case "number":
        return pick([0, 1.25, -3]);
      case "boolean":
        return next() < 0.5;
      case "null":
        return null;
      default:
        return scalar();
    }
  };
  return { fromSchema };
}

test("our validator agrees with Ajv on random values for every message schema", () => {
  const document = buildJsonSchema(protocol) as any;
  const ajv = new Ajv2020({ strict: false });
  const base = "http://knightcode.invalid/app-server.schema.json";
  ajv.addSchema({ ...document, $id: base });
  const ours = new SchemaCompiler(document);
  const random = makeRandom(1234);
  let compared = 0;
  for (const section of ["clientRequests", "clientNotifications", "serverRequests", "serverNotifications"]) {
    for (const [method, entry] of Object.entries(document[section] as Record<string, any>)) {
      for (const part of ["params", "result"]) {
        if (entry[part] === undefined) continue;
        const pointer = `#/${section}/${method.replaceAll("/", "~1")}/${part}`;
        const theirs = ajv.getSchema(`${base}${pointer}`)!;
        const mine = ours.compile(entry[part]);
        for (let i = 0; i < 400; i++) {
          const value = JSON.parse(JSON.stringify(random.fromSchema(entry[part], document, 0)) ?? "null");
          const a = theirs(value) as boolean;
          const b = mine(value, []) === undefined;
          assert.equal(b, a, `${method} ${part} disagrees on ${JSON.stringify(value).slice(0, 300)}`);
          compared++;
        }
      }
    }
  }
  assert.ok(compared > 1000);
});
