import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve, sep } from "node:path";
import { after, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { BUNDLE, bundleModules, bundleText, ROOT } from "./bundle-support.js";

type Plugin = { name: string; setup: (build: unknown) => void };
type OneCopy = (root: string, isBundled: (specifier: string) => boolean) => Plugin;
type Build = (options: Record<string, unknown>) => Promise<{ outputFiles: { text: string }[] }>;

/** The folder of the installed package a bundled file came from, and the file's path inside it. */
function packageOf(file: string): { dir: string; inside: string } | undefined {
  const at = file.lastIndexOf(`${sep}node_modules${sep}`);
  if (at < 0) return undefined;
  const rest = file.slice(at + `${sep}node_modules${sep}`.length).split(sep);
  const nameParts = rest[0]!.startsWith("@") ? 2 : 1;
  return { dir: file.slice(0, at) + `${sep}node_modules${sep}` + rest.slice(0, nameParts).join(sep), inside: rest.slice(nameParts).join("/") };
}

describe("one copy of each version of a bundled package (scripts/lib/one-copy.mjs)", () => {
  test("no file of a package's version is bundled from two of its installed copies", () => {
    const copies = new Map<string, Set<string>>();
    for (const name of bundleModules()) {
      const map = JSON.parse(readFileSync(join(BUNDLE, `${name}.map`), "utf8")) as { sources: string[] };
      for (const source of map.sources) {
        const found = packageOf(resolve(BUNDLE, source));
        if (!found) continue;
        const { name: pkg, version } = JSON.parse(readFileSync(join(found.dir, "package.json"), "utf8")) as { name: string; version: string };
        const key = `${pkg}@${version} ${found.inside}`;
        copies.set(key, (copies.get(key) ?? new Set()).add(found.dir));
      }
    }
    // lru-cache is installed in three workspace packages' node_modules: the case this is for.
    assert.ok(
      [...copies.keys()].some((key) => key.startsWith("lru-cache@11.")),
      "the bundle holds lru-cache 11",
    );
    const twice = [...copies].filter(([, dirs]) => dirs.size > 1).map(([key, dirs]) => `${key}: ${[...dirs].join(", ")}`);
    assert.deepEqual(twice, []);
    assert.equal(bundleText().split('Symbol.toStringTag]="LRUCache"').length - 1, 1, "one LRUCache class in the whole bundle");
  });

  describe("on installed copies of its own", () => {
    const root = mkdtempSync(join(tmpdir(), "kc-one-copy-"));
    after(() => rmSync(root, { recursive: true, force: true }));
    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    };
    const pkg = (dir: string, version: string, extra = "") => {
      write(`${dir}/package.json`, JSON.stringify({ name: "cache", version, main: "index.js" }));
      write(`${dir}/index.js`, `export const tag = { version: "${version}", where: "${dir}" };${extra}`);
    };
    // Two workspace packages hold version 2 each; the root holds 1 for someone else, a third package 3.
    pkg("node_modules/cache", "1.0.0");
    pkg("packages/a/node_modules/cache", "2.0.0");
    pkg("packages/b/node_modules/cache", "2.0.0");
    pkg("packages/c/node_modules/cache", "3.0.0");
    for (const name of ["a", "b", "c"]) write(`packages/${name}/src/use.js`, `import { tag } from "cache"; export const ${name} = tag;`);
    write("node_modules/other/package.json", JSON.stringify({ name: "other", version: "2.0.0", main: "index.js" }));
    write("node_modules/other/index.js", "export const other = 1;");
    write(
      "entry.js",
      'export { a } from "./packages/a/src/use.js"; export { b } from "./packages/b/src/use.js"; export { c } from "./packages/c/src/use.js"; export { tag as root } from "cache"; export { other } from "other";',
    );

    const bundle = async (isBundled: (specifier: string) => boolean) => {
      const { oneCopyPerVersion } = (await import(pathToFileURL(join(ROOT, "scripts", "lib", "one-copy.mjs")).href)) as { oneCopyPerVersion: OneCopy };
      const { build } = (await import("esbuild")) as unknown as { build: Build };
      const result = await build({
        entryPoints: [join(root, "entry.js")],
        bundle: true,
        write: false,
        format: "esm",
        platform: "node",
        logLevel: "silent",
        plugins: [oneCopyPerVersion(root, isBundled)],
      });
      const url = `data:text/javascript;base64,${Buffer.from(result.outputFiles[0]!.text).toString("base64")}`;
      return { text: result.outputFiles[0]!.text, exports: (await import(url)) as Record<string, { version: string; where: string } | number> };
    };

    test("copies of one version become one module; other versions keep their own", async () => {
      const { text, exports } = await bundle(() => true);
      assert.deepEqual(exports.a, { version: "2.0.0", where: "packages/a/node_modules/cache" });
      assert.equal(exports.b, exports.a, "b imports a's copy: one module, one object");
      assert.deepEqual(exports.c, { version: "3.0.0", where: "packages/c/node_modules/cache" });
      assert.deepEqual(exports.root, { version: "1.0.0", where: "node_modules/cache" });
      assert.equal(exports.other, 1);
      assert.equal(text.match(/version: "2\.0\.0"/g)?.length, 1, "version 2 is in the bundle once");
    });

    test("a package the bundle does not take in is left alone", async () => {
      const { text } = await bundle((specifier) => specifier !== "cache");
      assert.equal(text.match(/version: "2\.0\.0"/g)?.length, 2, "without the plugin's say, both copies stay");
    });

    test("a copy of the same version without the file imported from another fails the build, naming both", async () => {
      write("packages/b/node_modules/cache/package.json", JSON.stringify({ name: "cache", version: "2.0.0", main: "other-main.js" }));
      write("packages/b/node_modules/cache/other-main.js", "export const tag = 0;");
      try {
        await assert.rejects(
          bundle(() => true),
          /cache: .*packages[\\/]b[\\/]node_modules[\\/]cache resolves to other-main\.js, which .* \(.*packages[\\/]a[\\/]node_modules[\\/]cache\) lacks/,
        );
      } finally {
        write("packages/b/node_modules/cache/package.json", JSON.stringify({ name: "cache", version: "2.0.0", main: "index.js" }));
      }
    });
  });
});
