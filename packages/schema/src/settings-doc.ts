// The table of docs/settings.md, from the settings schema: one row per setting
// with its type, default and description. The prose around it stays by hand.
import type { TSchema } from "typebox";
import { Settings } from "./settings.js";
import { typeTitle } from "./words.js";

export const TABLE_START = "<!-- settings table: generated from packages/schema/src/settings.ts by `npm run generate:docs` in packages/schema; do not edit -->";
export const TABLE_END = "<!-- end of the generated settings table -->";

interface SchemaNode {
  type?: string;
  properties?: Record<string, TSchema>;
  default?: unknown;
  description?: string;
}

function rows(schema: TSchema, prefix: string, out: string[]): string[] {
  for (const [name, child] of Object.entries((schema as SchemaNode).properties ?? {})) {
    const key = prefix === "" ? name : `${prefix}.${name}`;
    const node = child as SchemaNode;
    if (node.type === "object") {
      rows(child, key, out);
      continue;
    }
    if (node.description === undefined) throw new Error(`the setting ${key} has no description`);
    out.push(`| \`${key}\` | ${typeTitle(child)} | \`${JSON.stringify(node.default)}\` | ${node.description} |`);
  }
  return out;
}

export function renderSettingsTable(): string {
  return ["| key | type | default | meaning |", "|---|---|---|---|", ...rows(Settings, "", [])].join("\n");
}

/** The document with its generated table replaced by the current one; throws when the markers are missing. */
export function withSettingsTable(doc: string): string {
  const start = doc.indexOf(TABLE_START);
  const end = doc.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error("docs/settings.md has lost the markers of its generated table");
  return `${doc.slice(0, start + TABLE_START.length)}\n\n${renderSettingsTable()}\n\n${doc.slice(end)}`;
}
