import assert from "node:assert/strict";
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ExtensionFactoryCache, type FactoryCacheCounts } from "../../src/extensions/factory-cache.js";
import type { ExtensionHostDeps } from "../../src/extensions/host-deps.js";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { runEnv, type RunEnv } from "../support/env.js";
import { testHost } from "../support/host.js";

let env: RunEnv;
let dir: string;
let n = 0;
before(async () => {
  env = await runEnv();
  dir = join(env.dir, "factory-cache");
  mkdirSync(dir, { recursive: true });
});
after(() => env.close());

function extension(source: string, name = `ext${n++}.ts`): string {
  const path = join(dir, name);
  writeFileSync(path, source);
  return path;
}

/** An extension that registers a command whose description counts the factory calls of its module instance. */
function counting(label = "v1"): string {
  return `
    let count = 0;
    export default function (kc: any) {
      count++;
      kc.registerCommand("count", { description: ${JSON.stringify(label)} + ":" + count, handler: () => {} });
    }
  `;
}

function makeHost(factories: ExtensionFactoryCache | undefined, overrides: Partial<ExtensionHostDeps> = {}) {
  return testHost(env, { factories, ...overrides });
}

/** What a factory registers when run against a bare API: enough to tell instances apart. */
async function describeFactory(factory: (api: ExtensionAPI) => unknown): Promise<string[]> {
  const seen: string[] = [];
  const api = { registerCommand: (name: string, command: { description?: string }) => seen.push(`${name}=${command.description}`) };
  await factory(api as unknown as ExtensionAPI);
  return seen;
}

describe("sharing between threads", () => {
  test("two hosts on one cache: the source is transformed once, each host gets its own instance", async () => {
    const path = extension(counting());
    const cache = new ExtensionFactoryCache();
    const a = makeHost(cache);
    const b = makeHost(cache);
    assert.deepEqual(await a.host.load([{ path }]), []);
    assert.deepEqual(await b.host.load([{ path }]), []);
    assert.equal(cache.transforms, 1);
    assert.equal(a.host.commands()[0]!.description, "v1:1");
    assert.equal(b.host.commands()[0]!.description, "v1:1", "module state is not shared between threads");
    assert.deepEqual(cache.counts(), { inactive: 0, leased: 1 });
  });

  test("every lease evaluates the module anew: top-level code runs each time", async () => {
    const key = `__kcEvaluations${n}`;
    const path = extension(`
      (globalThis as any).${key} = ((globalThis as any).${key} ?? 0) + 1;
      export default function () {}
    `);
    const cache = new ExtensionFactoryCache();
    const first = await cache.lease(path);
    const second = await cache.lease(path);
    assert.notEqual(first.factory, second.factory);
    assert.equal((globalThis as Record<string, unknown>)[key], 2);
    assert.equal(cache.transforms, 1);
  });

  test("two leases racing for a file not yet cached share one read and transform", async () => {
    const path = extension(counting());
    const cache = new ExtensionFactoryCache();
    const [a, b] = await Promise.all([cache.lease(path), cache.lease(path)]);
    assert.equal(cache.transforms, 1);
    assert.deepEqual(await describeFactory(a.factory), ["count=v1:1"]);
    assert.deepEqual(await describeFactory(b.factory), ["count=v1:1"]);
  });

  test(".mjs, .js and .cjs entries with relative imports and top-level await get one instance per lease", async () => {
    const folder = join(dir, `formats${n++}`);
    mkdirSync(folder);
    writeFileSync(join(folder, "helper.js"), `export const greeting = "hello";`);
    writeFileSync(
      join(folder, "entry.mjs"),
      `import { greeting } from "./helper.js";
      const word = await Promise.resolve(greeting);
      let count = 0;
      export default function (kc) { count++; kc.registerCommand("count", { description: word + ":" + count }); }`,
    );
    writeFileSync(
      join(folder, "entry.js"),
      `let count = 0;\nexport default function (kc) { count++; kc.registerCommand("count", { description: "js:" + count }); }`,
    );
    writeFileSync(
      join(folder, "entry.cjs"),
      `let count = 0;\nmodule.exports = function (kc) { count++; kc.registerCommand("count", { description: "cjs:" + count }); };`,
    );
    const cache = new ExtensionFactoryCache();
    for (const [file, label] of [
      ["entry.mjs", "hello"],
      ["entry.js", "js"],
      ["entry.cjs", "cjs"],
    ] as const) {
      for (let thread = 0; thread < 2; thread++) {
        const lease = await cache.lease(join(folder, file));
        assert.deepEqual(await describeFactory(lease.factory), [`count=${label}:1`], `${file}, lease ${thread + 1}`);
      }
    }
  });

  test("CommonJS entries keep the sloppy mode Node gives them; ES modules stay strict", async () => {
    const mode = `(function () { return this === undefined ? "strict" : "sloppy"; })()`;
    const cjs = extension(`accidentalGlobal${n} = 1;\nmodule.exports = (kc) => kc.registerCommand("mode", { description: ${mode} });`, `sloppy${n}.cjs`);
    const js = extension(`module.exports = (kc) => kc.registerCommand("mode", { description: ${mode} });`, `sloppy${n}.js`);
    const esm = extension(`export default (kc) => kc.registerCommand("mode", { description: ${mode} });`, `strict${n}.js`);
    const cache = new ExtensionFactoryCache();
    assert.deepEqual(await describeFactory((await cache.lease(cjs)).factory), ["mode=sloppy"]);
    assert.deepEqual(await describeFactory((await cache.lease(js)).factory), ["mode=sloppy"]);
    assert.deepEqual(await describeFactory((await cache.lease(esm)).factory), ["mode=strict"]);
  });

  test("a folder path loads its index file; TypeBox comes from our installation", async () => {
    const folder = join(dir, `folder${n++}`);
    mkdirSync(folder);
    writeFileSync(
      join(folder, "index.ts"),
      `import { Type } from "typebox";\nexport default (kc: any) => kc.registerCommand("kind", { description: Type.String().type });`,
    );
    const cache = new ExtensionFactoryCache();
    const lease = await cache.lease(folder);
    assert.equal(lease.filename, join(folder, "index.ts"));
    assert.deepEqual(await describeFactory(lease.factory), ["kind=string"]);
  });
});

describe("versions", () => {
  test("an edited file gives the next load the new code; the old version goes once released", async () => {
    const path = extension(counting("v1"));
    const cache = new ExtensionFactoryCache();
    const old = await cache.lease(path);
    writeFileSync(path, counting("v2"));
    const later = new Date(Date.now() + 5_000);
    utimesSync(path, later, later);
    const fresh = await cache.lease(path);
    assert.deepEqual(await describeFactory(fresh.factory), ["count=v2:1"]);
    assert.deepEqual(await describeFactory(old.factory), ["count=v1:1"], "a thread keeps the version it loaded");
    assert.deepEqual(cache.counts(), { inactive: 0, leased: 2 });
    old.release();
    assert.deepEqual(cache.counts(), { inactive: 0, leased: 1 });
    fresh.release();
    assert.deepEqual(cache.counts(), { inactive: 1, leased: 0 });
    const again = await cache.lease(path);
    assert.deepEqual(await describeFactory(again.factory), ["count=v2:1"]);
    assert.equal(cache.transforms, 2);
  });

  test("a changed import is picked up although the entry file is unchanged", async () => {
    const folder = join(dir, `imports${n++}`);
    mkdirSync(folder);
    const dep = join(folder, "dep.ts");
    writeFileSync(dep, `export const word = "before";`);
    const path = join(folder, "index.ts");
    writeFileSync(path, `import { word } from "./dep";\nexport default (kc: any) => kc.registerCommand("word", { description: word });`);
    const cache = new ExtensionFactoryCache();
    assert.deepEqual(await describeFactory((await cache.lease(path)).factory), ["word=before"]);
    writeFileSync(dep, `export const word = "after!";`);
    assert.deepEqual(await describeFactory((await cache.lease(path)).factory), ["word=after!"]);
  });
});

describe("leases and eviction", () => {
  test("a lease keeps its entry; releasing makes it inactive; releasing twice changes nothing", async () => {
    const path = extension(counting());
    const changes: FactoryCacheCounts[] = [];
    const cache = new ExtensionFactoryCache({ onChange: (counts) => changes.push(counts) });
    const a = await cache.lease(path);
    const b = await cache.lease(path);
    assert.deepEqual(cache.counts(), { inactive: 0, leased: 1 });
    a.release();
    a.release();
    assert.deepEqual(cache.counts(), { inactive: 0, leased: 1 }, "b still holds the entry");
    b.release();
    assert.equal(cache.inactiveCount, 1);
    assert.equal(cache.leasedCount, 0);
    assert.deepEqual(changes, [
      { inactive: 0, leased: 1 },
      { inactive: 1, leased: 0 },
    ]);
  });

  test("with two inactive entries allowed, the least recently used go first", async () => {
    const paths = [0, 1, 2, 3].map(() => extension(counting()));
    const cache = new ExtensionFactoryCache({ maxInactive: 2 });
    for (const path of paths) (await cache.lease(path)).release();
    assert.deepEqual(cache.counts(), { inactive: 2, leased: 0 });
    assert.equal(cache.transforms, 4);
    (await cache.lease(paths[2]!)).release();
    assert.equal(cache.transforms, 4, "files 2 and 3 are still cached; file 2 is now the most recently used");
    (await cache.lease(paths[0]!)).release();
    assert.equal(cache.transforms, 5, "file 0 had been evicted");
    (await cache.lease(paths[2]!)).release();
    assert.equal(cache.transforms, 5, "file 2 stayed");
    (await cache.lease(paths[3]!)).release();
    assert.equal(cache.transforms, 6, "file 3, the least recently used, made room for file 0");
    assert.deepEqual(cache.counts(), { inactive: 2, leased: 0 });
  });

  test("leased entries are never evicted and do not count against the limit", async () => {
    const [held, ...others] = [0, 1, 2].map(() => extension(counting()));
    const cache = new ExtensionFactoryCache({ maxInactive: 1 });
    const lease = await cache.lease(held!);
    for (const path of others) (await cache.lease(path)).release();
    assert.deepEqual(cache.counts(), { inactive: 1, leased: 1 });
    (await cache.lease(held!)).release();
    assert.equal(cache.transforms, 3, "the held file was not read again");
    lease.release();
    assert.deepEqual(cache.counts(), { inactive: 1, leased: 0 });
  });

  test("a host releases its leases when disposed, and disposing twice is safe", async () => {
    const paths = [extension(counting()), extension(counting())];
    const cache = new ExtensionFactoryCache();
    const { host } = makeHost(cache);
    assert.deepEqual(await host.load(paths.map((path) => ({ path }))), []);
    assert.deepEqual(cache.counts(), { inactive: 0, leased: 2 });
    await host.dispose("unload");
    assert.deepEqual(cache.counts(), { inactive: 2, leased: 0 });
    await host.dispose("unload");
    assert.deepEqual(cache.counts(), { inactive: 2, leased: 0 });
  });

  test("a reload releases the old leases and takes new ones from the cache", async () => {
    const path = extension(counting());
    const cache = new ExtensionFactoryCache();
    const { host } = makeHost(cache);
    await host.load([{ path }]);
    await host.dispose("reload");
    await host.load([{ path }]);
    assert.equal(host.commands()[0]!.description, "v1:1");
    assert.equal(cache.transforms, 1);
    assert.deepEqual(cache.counts(), { inactive: 0, leased: 1 });
  });
});

describe("failures", () => {
  test("a syntax error, a missing default export and a throwing module are not cached", async () => {
    const broken = [
      extension(`export default function ( {`),
      extension(`export const x = 1;`),
      extension(`throw new Error("module exploded");\nexport default () => {};`),
    ];
    const cache = new ExtensionFactoryCache();
    for (const path of broken) {
      for (let attempt = 0; attempt < 2; attempt++) await assert.rejects(cache.lease(path));
    }
    assert.equal(cache.transforms, 6, "every attempt read and transformed the file again");
    assert.deepEqual(cache.counts(), { inactive: 0, leased: 0 });
    await assert.rejects(cache.lease(broken[1]!), { name: "ExtensionLoadError", code: "extensionLoadFailed", message: /no default export/ });
  });

  test("a host reports failed loads as warnings and holds no lease for them", async () => {
    const missing = join(dir, "missing.ts");
    const throws = extension(`throw new Error("module exploded");\nexport default () => {};`);
    const factoryThrows = extension(`export default () => { throw new Error("factory exploded"); };`);
    const good = extension(counting());
    const cache = new ExtensionFactoryCache();
    const { host } = makeHost(cache);
    const warnings = await host.load([{ path: missing }, { path: throws }, { path: factoryThrows }, { path: good }]);
    assert.deepEqual(
      warnings.map((w) => w.path),
      [missing, throws, factoryThrows],
    );
    assert.ok(warnings.every((w) => w.source === "extension"));
    assert.match(warnings[1]!.message, /module exploded/);
    assert.match(warnings[2]!.message, /factory exploded/);
    // The factory that threw evaluated fine: its code stays cached, unheld.
    assert.deepEqual(cache.counts(), { inactive: 1, leased: 1 });
  });

  test("a file fixed after a failure loads", async () => {
    const path = extension(`export default function ( {`);
    const cache = new ExtensionFactoryCache();
    await assert.rejects(cache.lease(path), /Unexpected token/);
    writeFileSync(path, counting("fixed"));
    assert.deepEqual(await describeFactory((await cache.lease(path)).factory), ["count=fixed:1"]);
  });

  test("a bad limit is refused", () => {
    assert.throws(() => new ExtensionFactoryCache({ maxInactive: -1 }), RangeError);
  });
});
