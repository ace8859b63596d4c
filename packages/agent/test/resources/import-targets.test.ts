import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, test } from "node:test";
import { ExtensionFactoryCache } from "../../src/extensions/factory-cache.js";
import { importTargets } from "../../src/resources/import-targets.js";

/**
 * The import targets are checked against the loader itself: for each
 * layout, an extension imports a specifier through the real jiti set up
 * as the server sets it up, the module it loads says which file it is, and
 * that file must be among the targets. Layouts the loader does not load
 * are kept too, so a loader upgrade that starts loading them fails here.
 */

const cache = new ExtensionFactoryCache();
const roots: string[] = [];
after(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** A module that records its own name (relative to the project) when loaded. */
function module(name: string, marker: string): string {
  if (name.endsWith(".json")) return JSON.stringify({ loaded: name });
  const write = `writeFileSync(${JSON.stringify(marker)}, ${JSON.stringify(name)})`;
  return /\.c[jt]s$/.test(name)
    ? `require("node:fs").${write};\nmodule.exports = {};\n`
    : `import { writeFileSync } from "node:fs";\n${write};\nexport const x = 1;\n`;
}

/** Loads `ext/ext.ts`, which imports `specifier`; answers the project-relative file that loaded, or undefined when the import failed. */
async function loadedBy(specifier: string, files: Record<string, string | true>): Promise<{ loaded: string | undefined; importer: string; project: string }> {
  const project = mkdtempSync(join(tmpdir(), "kc-import-targets-"));
  roots.push(project);
  const marker = join(project, "marker");
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(project, name)), { recursive: true });
    writeFileSync(join(project, name), content === true ? module(name, marker) : content);
  }
  const importer = join(project, "ext", "ext.ts");
  mkdirSync(dirname(importer), { recursive: true });
  writeFileSync(importer, `export default async function () { return await import(${JSON.stringify(specifier)}); }\n`);
  const lease = await cache.lease(importer);
  try {
    const exports = (await lease.factory({} as never)) as { loaded?: string; default?: { loaded?: string } } | undefined;
    const json = exports?.loaded ?? exports?.default?.loaded;
    if (json !== undefined) return { loaded: json, importer, project };
    try {
      return { loaded: readFileSync(marker, "utf8"), importer, project };
    } catch {
      return { loaded: undefined, importer, project };
    }
  } catch {
    return { loaded: undefined, importer, project };
  } finally {
    lease.release();
  }
}

const SUFFIXED = [".ts", ".mts", ".cts", ".js", ".mjs", ".cjs", ".tsx", ".jsx", ".json", ".d.ts"];
const LAYOUTS: [specifier: string, files: Record<string, string | true>, loads: boolean][] = [
  ...SUFFIXED.map((suffix): [string, Record<string, true>, boolean] => ["./opt", { [`ext/opt${suffix}`]: true }, suffix !== ".jsx" && suffix !== ".d.ts"]),
  ...SUFFIXED.map((suffix): [string, Record<string, true>, boolean] => [
    "./opt",
    { [`ext/opt/index${suffix}`]: true },
    suffix !== ".jsx" && suffix !== ".d.ts",
  ]),
  ["./opt.js", { "ext/opt.ts": true }, true],
  ["./opt.mjs", { "ext/opt.mts": true }, true],
  ["./opt.cjs", { "ext/opt.cts": true }, true],
  ["./opt.jsx", { "ext/opt.tsx": true }, true],
  ["./opt", { "ext/opt/package.json": JSON.stringify({ main: "lib/x.js" }), "ext/opt/lib/x.js": true }, true],
  ["./opt", { "ext/opt/package.json": JSON.stringify({ main: "../../far/x.js" }), "far/x.js": true }, true],
  ["./opt", { "ext/opt/package.json": JSON.stringify({ main: "missing.js" }), "ext/opt/index.cjs": true }, true],
  ["../shared/x.ts", { "shared/x.ts": true }, true],
  ["#internal", { "package.json": JSON.stringify({ imports: { "#internal": "./far/x.js" } }), "far/x.js": true }, true],
  ["pkg", { "ext/node_modules/pkg/index.js": true }, true],
  ["pkg", { "node_modules/pkg/package.json": JSON.stringify({ main: "m.js" }), "node_modules/pkg/m.js": true }, true],
  ["pkg", { "node_modules/pkg/package.json": JSON.stringify({ exports: { ".": { import: "./e.mjs" } } }), "node_modules/pkg/e.mjs": true }, true],
  ["pkg", { "node_modules/pkg.ts": true }, true],
  ["@scope/pkg/sub", { "node_modules/@scope/pkg/sub.ts": true }, true],
];

test("every file the extension loader loads for a specifier is among its import targets", async () => {
  for (const [specifier, files, loads] of LAYOUTS) {
    const { loaded, importer, project } = await loadedBy(specifier, files);
    const layout = `${specifier} with ${Object.keys(files).join(", ")}`;
    assert.equal(loaded !== undefined, loads, `${layout}: the loader ${loads ? "loads" : "does not load"} it`);
    if (loaded === undefined) continue;
    const file = join(project, loaded);
    const covered = importTargets(specifier, importer).some((target) => (target.folder ? file.startsWith(target.path + "/") : target.path === file));
    assert.ok(covered, `${layout}: ${file} is a target`);
  }
});

test("a manifest that decides what a folder import loads is a target, and built-in modules are none", () => {
  const importer = join(tmpdir(), "kc-nowhere", "ext.ts");
  assert.ok(importTargets("./opt", importer).some((target) => target.path === join(tmpdir(), "kc-nowhere", "opt", "package.json")));
  assert.ok(
    importTargets("#x", importer).some((target) => target.path === join(tmpdir(), "kc-nowhere", "package.json")),
    "a package.json created beside the importer would decide #x",
  );
  for (const specifier of ["node:fs", "fs", "data:text/javascript,1", "https://example.com/x.js"])
    assert.deepEqual(importTargets(specifier, importer), [], specifier);
  const bare = importTargets("left-pad", importer).filter((target) => target.folder);
  assert.ok(
    bare.some((target) => target.path === join(tmpdir(), "kc-nowhere", "node_modules", "left-pad")),
    "the nearest node_modules counts before it exists",
  );
});
