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
 * Bundled: our workspace packages, and typebox, whose several hundred small
 * modules otherwise cost more to find and load than the whole thread layer.
 * Everything else from the registry stays external and loads on demand.
 */
function bundled(specifier) {
  return specifier.startsWith("@knightcode/") || specifier.startsWith("node:") || specifier === "typebox" || specifier.startsWith("typebox/");
}
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
