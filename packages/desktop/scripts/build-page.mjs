#!/usr/bin/env node
// Bundles the page into dist/page: index.html, app.js, app.css and the
// fonts, everything it loads, so the page needs no network. Fails when the
// page would weigh more than the 250 KiB (gzipped) the issue allows.
import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const pkg = fileURLToPath(new URL("..", import.meta.url));
const out = join(pkg, "dist", "page");
const LIMIT = 250 * 1024;

/**
 * The page imports the client's browser entry, which reaches nothing of
 * Node. Anything that names a Node builtin or the `ws` package fails the
 * build here, at its import, instead of being stubbed into the page.
 */
const NODE_ONLY = /^(node:.*|ws|ws\/.*)$/;
const nodeOnlyRefused = {
  name: "no-node-in-page",
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) =>
      NODE_ONLY.test(args.path) || isBuiltin(args.path)
        ? { errors: [{ text: `${args.path} is Node-only and cannot reach the page (imported by ${args.importer})` }] }
        : undefined,
    );
  },
};

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, "fonts"), { recursive: true });
const minify = process.env.KNIGHTCODE_PAGE_DEV !== "1";
const { metafile } = await build({
  entryPoints: { app: join(pkg, "src", "main.tsx") },
  outdir: out,
  bundle: true,
  format: "esm",
  platform: "browser",
  target: ["chrome120", "firefox120", "safari17"],
  jsx: "automatic",
  jsxImportSource: "preact",
  minify,
  sourcemap: "linked",
  legalComments: "none",
  loader: { ".css": "css" },
  external: ["/fonts/*"],
  plugins: [nodeOnlyRefused],
  metafile: true,
  logLevel: "warning",
});

// The page's inputs, for the test that shows no Node module reached it.
writeFileSync(join(pkg, "dist", "page-inputs.json"), JSON.stringify({ inputs: Object.keys(metafile.inputs) }, null, 1));

// Inter ships as one variable font per script; the page carries Latin (other scripts fall back to the system font).
const fonts = join(pkg, "..", "..", "node_modules", "@fontsource-variable", "inter", "files");
for (const name of ["inter-latin-wght-normal.woff2"]) copyFileSync(join(fonts, name), join(out, "fonts", name));
for (const name of ["index.html", "favicon.svg"]) writeFileSync(join(out, name), readFileSync(join(pkg, "src", name)));

let total = 0;
const sizes = {};
for (const file of walk(out)) {
  if (file.endsWith(".map")) continue;
  const bytes = readFileSync(file);
  const size = file.endsWith(".woff2") ? bytes.length : gzipSync(bytes, { level: 9 }).length;
  sizes[file.slice(out.length + 1)] = size;
  total += size;
}
if (total > LIMIT) {
  console.error(`the page weighs ${(total / 1024).toFixed(1)} KiB gzipped, over ${LIMIT / 1024} KiB: ${JSON.stringify(sizes)}`);
  process.exit(1);
}
if (process.env.KNIGHTCODE_PAGE_SIZES === "1") console.error(JSON.stringify({ totalGzipBytes: total, sizes }));

function* walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else yield path;
  }
}
