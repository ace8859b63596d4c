#!/usr/bin/env node
// Builds every package (tsc -b), then bundles the CLI's start-up path into
// packages/cli/dist/bundle: one file to load instead of dozens of package
// lookups, which is most of a cold start. Third-party packages stay external
// and load on demand.
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const tsc = fileURLToPath(new URL("../node_modules/typescript/bin/tsc", import.meta.url));
execFileSync(process.execPath, [tsc, "-b"], { cwd: root, stdio: "inherit" });

const outdir = `${root}/packages/cli/dist/bundle`;

/**
 * Bundled: our workspace packages, the engine (pi-ai, pi-agent-core) and
 * typebox, whose several hundred small modules otherwise cost more to find
 * and load than everything else on the way to a first thread (about 80 ms
 * bundled against 380 ms as files). The provider SDKs, jiti and ws stay
 * external: pi-ai loads a provider's SDK only when a model of it is used.
 */
const BUNDLED_PACKAGES = ["@knightcode/", "@mariozechner/pi-ai", "@mariozechner/pi-agent-core", "typebox", "partial-json"];
function bundled(specifier) {
  return specifier.startsWith("node:") || BUNDLED_PACKAGES.some((name) => specifier === name || specifier.startsWith(name.endsWith("/") ? name : `${name}/`));
}

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
    bedrockImport,
    {
      // V8 parses a JSON string much faster than the same data as a JavaScript literal.
      name: "json-as-parse",
      setup(b) {
        b.onLoad({ filter: /\.json$/ }, async (args) => {
          const { readFile } = await import("node:fs/promises");
          const text = await readFile(args.path, "utf8");
          return { contents: `export default JSON.parse(${JSON.stringify(JSON.stringify(JSON.parse(text)))});`, loader: "js" };
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
  sourcemap: "linked",
  logLevel: "warning",
});
