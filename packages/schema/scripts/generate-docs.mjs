#!/usr/bin/env node
// Writes the settings table of docs/settings.md from the settings schema.
// With --check, writes nothing and exits 1 when the table is stale.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { writeGenerated } from "../../../scripts/lib/generated-files.mjs";
import { withSettingsTable } from "../dist/src/settings-doc.js";

const path = fileURLToPath(new URL("../../../docs/settings.md", import.meta.url));
writeGenerated([[path, withSettingsTable(readFileSync(path, "utf8"))]], "npm run generate:docs in packages/schema");
