// A schema as plain data, for the code that reads config files at run time:
// reading settings.json (every thread/list reads the session folder setting)
// must not wait for TypeBox to load. The TypeBox modules stay the source;
// src/generated/ holds their plain copies, written by scripts/generate.mjs
// and checked against them by a test.
import type { TSchema } from "typebox";

/** The schema's JSON: what TypeBox builds, without anything JSON cannot carry. */
export function plainSchema(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}

/** The text of a generated module holding each schema, by export name, as a constant. */
export function renderPlainModule(source: string, schemas: Readonly<Record<string, TSchema>>): string {
  const lines = [
    `// Generated from ${source} by packages/schema/scripts/generate.mjs; do not edit.`,
    "// The schemas as plain data: the code that checks files at run time loads no TypeBox.",
    'import type { Schema } from "../validate.js";',
    "",
  ];
  for (const [name, schema] of Object.entries(schemas)) {
    lines.push(`export const ${name}: Schema = ${JSON.stringify(plainSchema(schema), null, 2)};`, "");
  }
  return lines.join("\n");
}
