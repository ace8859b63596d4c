import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { withSettingsTable } from "../src/settings-doc.js";

const docsPath = fileURLToPath(new URL("../../../../docs/settings.md", import.meta.url));

describe("docs/settings.md", () => {
  test("its settings table is the one the settings schema gives (npm run generate:docs in packages/schema)", () => {
    const doc = readFileSync(docsPath, "utf8");
    assert.equal(doc, withSettingsTable(doc));
  });
});
