#!/usr/bin/env node
// Builds every package (tsc -b) and the desktop page, then bundles the CLI's start-up path into
// packages/cli/dist/bundle: one file to load instead of dozens of package
// lookups, which is most of a cold start. Third-party packages stay external
// and load on demand.
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { modelCatalogue } from "./lib/model-catalogue.mjs";
import { sdkHttpPlugins } from "./lib/sdk-http.mjs";
import { newlineIndexPlugin, sseChunksPlugin } from "./lib/sse-chunks.mjs";
import { layers } from "./lib/layers.mjs";
import { oneCopyPerVersion } from "./lib/one-copy.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const tsc = fileURLToPath(new URL("../node_modules/typescript/bin/tsc", import.meta.url));
execFileSync(process.execPath, [tsc, "-b"], { cwd: root, stdio: "inherit" });
// The desktop page: its own esbuild bundle for browsers, served by `knightcode desktop`.
execFileSync(process.execPath, [`${root}/packages/desktop/scripts/build-page.mjs`], { cwd: root, stdio: "inherit" });

const outdir = `${root}/packages/cli/dist/bundle`;

/**
 * Bundled: our workspace packages, the engine (pi-ai, pi-agent-core) and
 * typebox, whose several hundred small modules otherwise cost more to find
 * and load than everything else on the way to a first thread (about 80 ms
 * bundled against 380 ms as files). The OpenAI and Anthropic SDKs are
 * bundled too, into the chunks of the providers that use them, so that they
 * still load only with a model of theirs: as 230 and 100 files, finding and
 * loading them took longer than the first model request itself. The other
 * provider SDKs, jiti and ws stay external. jsdiff and lru-cache are
 * bundled so that the version each package pinned is the one that runs: from
 * the bundle's folder, a bare import would find whatever version the root's
 * node_modules holds for another dependency (an older lru-cache). Each
 * version of a bundled package is bundled once (scripts/lib/one-copy.mjs).
 * jsonc-parser and picomatch load with the thread layer; as CommonJS
 * packages of their own, the first of them woke Node's CommonJS loader
 * inside an ES module process, which cost 6 MiB of memory and 10 ms, where
 * bundled they cost 0.7 MiB and 2 ms (measured by importing each alone).
 */
const BUNDLED_PACKAGES = [
  "@knightcode/",
  "@mariozechner/pi-ai",
  "@mariozechner/pi-agent-core",
  "typebox",
  "partial-json",
  "diff",
  "lru-cache",
  "jsonc-parser",
  "picomatch",
  "openai",
  "@anthropic-ai/sdk",
];
function bundled(specifier) {
  return specifier.startsWith("node:") || BUNDLED_PACKAGES.some((name) => specifier === name || specifier.startsWith(name.endsWith("/") ? name : `${name}/`));
}

/**
 * jsonc-parser's main file is a UMD build that loads its parts with
 * `require`; its ES module build is the same code as modules, which the
 * bundle takes as it takes our own.
 */
const jsoncParserModules = {
  name: "jsonc-parser-modules",
  setup(b) {
    b.onResolve({ filter: /^jsonc-parser$/ }, async (args) => {
      const { createRequire } = await import("node:module");
      const main = createRequire(args.importer).resolve("jsonc-parser");
      const modules = main.replace(/[\\/]umd[\\/]main\.js$/, "/esm/main.js");
      if (modules === main) throw new Error(`${main}: jsonc-parser's layout changed; update scripts/build.mjs`);
      return { path: modules };
    });
  },
};
/**
 * pi-ai loads its Bedrock provider through a helper that hides the path from
 * bundlers; spelled out, the provider becomes a chunk of its own like the
 * others. The build fails if the text changes, so an upgrade cannot break
 * Bedrock silently.
 */
const bedrockImport = {
  name: "pi-ai-bedrock-import",
  setup(b) {
    b.onLoad({ filter: /pi-ai[\\/]dist[\\/]providers[\\/]register-builtins\.js$/ }, async (args) => {
      const { readFile } = await import("node:fs/promises");
      const text = await readFile(args.path, "utf8");
      const hidden = 'importNodeOnlyProvider("./amazon-bedrock.js")';
      if (!text.includes(hidden)) throw new Error(`${args.path}: the Bedrock import changed; update scripts/build.mjs`);
      return { contents: text.replace(hidden, 'import("./amazon-bedrock.js")'), loader: "js" };
    });
  },
};
const catalogue = modelCatalogue();
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: { main: `${root}/packages/cli/dist/src/main.js` },
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  plugins: [
    layers(root),
    bedrockImport,
    jsoncParserModules,
    catalogue.plugin,
    sseChunksPlugin,
    newlineIndexPlugin,
    ...sdkHttpPlugins,
    oneCopyPerVersion(root, bundled),
    {
      // V8 parses a JSON string much faster than the same data as a JavaScript literal. A character
      // past U+00FF is written as JSON's own escape: one such character would make V8 keep the whole
      // literal, which the module holds for good, at two bytes a character (the protocol schema's eight
      // bullets and one ellipsis doubled its 188,000 characters).
      name: "json-as-parse",
      setup(b) {
        b.onLoad({ filter: /\.json$/ }, async (args) => {
          const { readFile } = await import("node:fs/promises");
          const text = await readFile(args.path, "utf8");
          const json = JSON.stringify(JSON.parse(text)).replace(/[^\u0000-\u00ff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
          return { contents: `export default JSON.parse(${JSON.stringify(json)});`, loader: "js" };
        });
      },
    },
    {
      name: "external-registry-packages",
      setup(b) {
        b.onResolve({ filter: /^[^./]/ }, (args) => (bundled(args.path) ? undefined : { path: args.path, external: true }));
      },
    },
  ],
  // Node takes a .mjs file as a module at once; for a .js file it looks for the package.json that says so, for every chunk.
  outExtension: { ".js": ".mjs" },
  // V8 reads every byte of a module before it runs it: without the blanks and with shorter syntax the
  // bundle is 24% smaller, and a new process's first thread/list 10% faster. Names stay as written, so
  // stack traces still name their functions; the source maps give the lines.
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: "linked",
  logLevel: "warning",
});
catalogue.write(outdir);
