#!/usr/bin/env node
// Writes the settings table of docs/settings.md from the settings schema.
// With --check, writes nothing and exits 1 when the table is stale.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { withSettingsTable } from "../dist/src/settings-doc.js";

const path = fileURLToPath(new URL("../../../docs/settings.md", import.meta.url));
const current = readFileSync(path, "utf8");
const next = withSettingsTable(current);
if (next === current) process.exit(0);
if (process.argv.includes("--check")) {
  console.error(`stale: ${path} (run npm run generate:docs in packages/schema)`);
  process.exit(1);
}
writeFileSync(path, next);
console.error(`wrote ${path}`);
