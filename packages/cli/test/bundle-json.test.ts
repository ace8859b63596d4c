import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { BUNDLE, bundleModules, moduleExporting, moduleText, ROOT } from "./bundle-support.js";

/** Each `JSON.parse` of a literal the bundle holds, as the string the literal makes. */
function jsonLiterals(): { module: string; value: string }[] {
  const found: { module: string; value: string }[] = [];
  for (const module of bundleModules()) {
    const text = moduleText(module);
    // esbuild writes the build's JSON.parse("...") as a template literal.
    for (const [, literal] of text.matchAll(/JSON\.parse\(`((?:[^`\\]|\\.)*)`\)/g)) {
      // A template with a substitution is code of ours parsing text it built, not a file the build took in.
      if (literal!.includes("${")) continue;
      found.push({ module, value: new Function(`return \`${literal}\`;`)() as string });
    }
  }
  return found;
}

describe("the JSON files the bundle takes in (scripts/build.mjs, json-as-parse)", () => {
  test("each is a literal of one-byte characters, which V8 keeps at a byte a character", () => {
    const literals = jsonLiterals();
    const schema = literals.find(({ value }) => value.includes('"clientRequests"'));
    assert.ok(schema, "the protocol schema is one of them");
    // The schema's descriptions hold characters past U+00FF (bullets, an ellipsis): escaped, they no longer double its size.
    assert.match(schema.value, /\\u20[0-9a-f]{2}/);
    const wide = literals.filter(({ value }) => /[^\u0000-\u00ff]/.test(value)).map(({ module, value }) => `${module}: ${value.slice(0, 60)}`);
    assert.deepEqual(wide, []);
  });

  test("the protocol schema the bundle runs on is the schema file, character for character", async () => {
    const name = moduleExporting("ProtocolSchema");
    assert.ok(name, "a chunk exports ProtocolSchema");
    const { ProtocolSchema } = (await import(pathToFileURL(join(BUNDLE, name)).href)) as { ProtocolSchema: { load(): { document: unknown } } };
    const file = JSON.parse(readFileSync(join(ROOT, "packages", "app-server-protocol", "app-server.schema.json"), "utf8")) as unknown;
    assert.deepEqual(ProtocolSchema.load().document, file);
    assert.match(JSON.stringify(file), /[^\u0000-\u00ff]/, "the file has characters the bundle escapes");
  });
});
