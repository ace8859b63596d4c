#!/usr/bin/env node
// Writes app-server.schema.json and src/generated/types.ts from the protocol table; docs/methods.md, which
// also names the server's file of each method, is written by scripts/methods.mjs at the repository root.
// With --check, writes nothing and exits 1 when either file is stale.
import { fileURLToPath } from "node:url";
import { writeGenerated } from "../../../scripts/lib/generated-files.mjs";
import { protocol, buildJsonSchema, methodFields, renderTypeScript } from "../dist/src/schema/index.js";

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const undocumented = methodFields(protocol).filter(({ row }) => row.description.trim() === "");
if (undocumented.length > 0) {
  for (const { method, part, row } of undocumented) console.error(`no description: ${method} ${part}.${row.path}`);
  console.error(`${undocumented.length} fields have no description: give each a description in src/schema/*.ts`);
  process.exit(1);
}
const schema = buildJsonSchema(protocol);
const targets = [
  [here("../app-server.schema.json"), JSON.stringify(schema, null, 2) + "\n"],
  [here("../src/generated/types.ts"), renderTypeScript(schema)],
];
writeGenerated(targets, "npm run generate:schema in packages/app-server-protocol");
