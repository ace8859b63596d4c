import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { BUNDLE, bundleModules, moduleExporting, moduleText, staticImports } from "./bundle-support.js";

/** Every chunk `roots` load before they run, with the packages each of them imports by name. */
function closure(roots: string[]): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  const queue = [...roots];
  while (queue.length > 0) {
    const name = queue.pop()!;
    if (seen.has(name)) continue;
    const { chunks, packages } = staticImports(moduleText(name));
    seen.set(name, packages);
    queue.push(...chunks);
  }
  return seen;
}

/** The chunk a method's handler, or the thread manager, loads from: read off the bundle's own dynamic imports. */
function dynamicTarget(pattern: RegExp): string {
  for (const name of bundleModules()) {
    const match = pattern.exec(moduleText(name));
    if (match) return match[1]!;
  }
  throw new Error(`no chunk of the bundle matches ${pattern}`);
}

/** The module a layer loads from (scripts/lib/layers.mjs): every part of it comes from this one module. */
const layer = (name: string) => dynamicTarget(new RegExp(`import\\("\\.\\/(${name}-layer-[\\w-]+\\.mjs)"\\)`));

describe("the bundle's third-party packages", () => {
  test("the thread layer the warm-up loads imports no package from outside the bundle", () => {
    // What the server's warm-up loads: the thread and engine layers, and the one first request's handler kept apart from them.
    const loaded = closure([layer("threads"), layer("engine"), dynamicTarget(/"thread\/list":\(\)=>import\("\.\/([\w-]+\.mjs)"\)/)]);
    assert.ok(loaded.size > 5, `the closure holds the thread layer's chunks (${loaded.size})`);
    // A package of its own here would be loaded by Node's CommonJS loader or resolved from node_modules on the way to a first thread.
    const outside = [...loaded].filter(([, packages]) => packages.length > 0).map(([name, packages]) => `${name}: ${packages.join(", ")}`);
    assert.deepEqual(outside, []);
  });

  test("jsonc-parser and picomatch are inside the bundle, and work there", async () => {
    for (const name of bundleModules()) {
      assert.doesNotMatch(moduleText(name), /from\s*"(?:jsonc-parser|picomatch)"|import\("(?:jsonc-parser|picomatch)"\)/, name);
    }
    const holding = (exported: string) => {
      const name = moduleExporting(exported);
      assert.ok(name, `a chunk exports ${exported}`);
      return import(pathToFileURL(join(BUNDLE, name)).href);
    };
    const { editJsonText } = (await holding("editJsonText")) as { editJsonText: (text: string, before: unknown, after: unknown) => string };
    // Only the changed value is rewritten: the tabs, the key order and the one-line array stay as the user wrote them.
    const json = '{\r\n\t"model": "a",\r\n\t"keep": [1, 2],\r\n\t"last": true\r\n}\r\n';
    assert.equal(editJsonText(json, { model: "a", keep: [1, 2], last: true }, { model: "b", keep: [1, 2], last: true }), json.replace('"a"', '"b"'));
    assert.equal(
      editJsonText(json, { model: "a", keep: [1, 2], last: true }, { model: "a", keep: [1, 2], last: true, added: 1 }),
      '{\r\n\t"model": "a",\r\n\t"keep": [1, 2],\r\n\t"last": true,\r\n\t"added": 1\r\n}\r\n',
    );
    const { findPattern } = (await holding("findPattern")) as {
      findPattern: (pattern: string) => (relative: string, absolute: string, name: string) => boolean;
    };
    // Globs as fd reads them: a leading dot is an ordinary character, `*` stops at `/`, `{a,b}` is either, `[!a]` excludes.
    const ts = findPattern("src/**/*.{ts,tsx}");
    assert.deepEqual(
      ["src/a.ts", "src/x/y/.b.tsx", "src/a.js", "lib/a.ts"].map((path) => ts(path, `/w/${path}`, path.split("/").pop()!)),
      [true, true, false, false],
    );
    const notA = findPattern("[!a]*.md");
    assert.deepEqual(
      ["b.md", "a.md", "x/b.md"].map((path) => notA(path, `/w/${path}`, path.split("/").pop()!)),
      [true, false, true],
    );
    assert.equal(findPattern("*.md")("x/b.md", "/w/x/b.md", "x/b.md"), false, "`*` stops at a slash");
  });
});
