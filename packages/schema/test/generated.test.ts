import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { GENERATED } from "../src/generated-list.js";
import { renderPlainModule } from "../src/plain.js";
import { type Schema, SchemaCompiler } from "../src/validate.js";

describe("the plain copies of the schemas (src/generated/)", () => {
  for (const { file, source, schemas } of GENERATED) {
    test(`${file} is what ${source} gives (npm run generate in packages/schema)`, () => {
      const path = fileURLToPath(new URL(`../../src/generated/${file}`, import.meta.url));
      assert.equal(readFileSync(path, "utf8"), renderPlainModule(source, schemas));
    });
  }

  test("every copy compiles with the run-time checker, whose keywords leave no rule unchecked", async () => {
    for (const { file } of GENERATED) {
      const module = (await import(`../src/generated/${file.replace(/\.ts$/, ".js")}`)) as Record<string, Schema>;
      for (const schema of Object.values(module)) assert.doesNotThrow(() => new SchemaCompiler({}).compile(schema));
    }
  });
});
