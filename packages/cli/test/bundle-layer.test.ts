import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { bundleModules, moduleText, staticImports } from "./bundle-support.js";

/** Every module `root` loads before it runs, itself included: what one dynamic import of it costs Node's loader. */
function loads(root: string): { modules: Set<string>; imports: number } {
  const modules = new Set<string>();
  let imports = 0;
  const queue = [root];
  while (queue.length > 0) {
    const name = queue.pop()!;
    if (modules.has(name)) continue;
    modules.add(name);
    const next = staticImports(moduleText(name)).chunks;
    imports += next.length;
    queue.push(...next);
  }
  return { modules, imports };
}

/** The module a method's handler loads from, read off the bundle's method table, and whether it is a layer's part. */
function handlerModule(method: string): { module: string; viaLayer: boolean } {
  const pattern = new RegExp(`"${method}":\\(\\)=>import\\("\\./([\\w-]+\\.mjs)"\\)(\\.then\\(layer=>layer\\.part\\d+\\))?`);
  for (const name of bundleModules()) {
    const match = pattern.exec(moduleText(name));
    if (match) return { module: match[1]!, viaLayer: match[2] !== undefined };
  }
  throw new Error(`no chunk of the bundle holds the handler of ${method}`);
}

/** The names of the bundle's modules that stand for one of the source's lazily loaded files, had esbuild split the layers. */
const splitParts = () => bundleModules().filter((name) => /^(manager|open-thread|runtime|environment|registry|catalog|dist)-/.test(name));

describe("the bundle's layers (scripts/lib/layers.mjs)", () => {
  test("a thread's handlers, manager and runtime load as one layer, the engine as another, in a few dozen modules", () => {
    const start = handlerModule("thread/start");
    assert.equal(start.viaLayer, true, "thread/start's handler comes from a layer");
    assert.match(start.module, /^threads-layer-/);
    for (const method of ["thread/resume", "thread/read", "turn/start", "review/start", "git/commit"]) {
      assert.deepEqual(handlerModule(method), start, `${method}'s handler comes from the same layer`);
    }
    const engine = bundleModules().find((name) => name.startsWith("engine-layer-"));
    assert.ok(engine, "the engine is a layer of its own");
    // Split along every dynamic import, as esbuild splits by default, the same code was 109 modules joined by 520 imports.
    const threads = loads(start.module);
    const both = new Set([...threads.modules, ...loads(engine).modules]);
    assert.ok(both.size <= 45, `a first thread/start loads ${both.size} modules`);
    assert.ok(threads.imports <= 120, `the thread layer's modules import each other ${threads.imports} times`);
    assert.deepEqual(splitParts(), [], "no part of a layer is a module of its own");
  });

  test("what a client asks before it opens a thread loads without the thread layer", () => {
    const layer = handlerModule("thread/start").module;
    for (const method of ["thread/list", "model/list", "config/read", "account/read"]) {
      const { module } = handlerModule(method);
      assert.notEqual(module, layer, `${method}'s handler is no part of the thread layer`);
      const { modules } = loads(module);
      assert.ok(!modules.has(layer), `${method}'s handler loads without the thread layer`);
      assert.ok(modules.size < 25, `${method}'s handler loads ${modules.size} modules`);
    }
  });

  test("thread/list's handler and the thread catalogue it reads are one load", () => {
    const list = handlerModule("thread/list");
    assert.equal(list.viaLayer, true);
    assert.match(list.module, /^listing-layer-/);
    // The catalogue is what services.catalog() loads: the same module, with nothing more to fetch after the handler.
    assert.ok(
      bundleModules().some((name) =>
        new RegExp(`import\\("\\./${list.module.replace(/[.-]/g, "\\$&")}"\\)\\.then\\(layer=>layer\\.part1\\)`).test(moduleText(name)),
      ),
      "the catalogue comes from the listing layer",
    );
    assert.deepEqual(
      bundleModules().filter((name) => /^catalog-/.test(name)),
      [],
      "the catalogue is no module of its own",
    );
  });
});
