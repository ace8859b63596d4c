#!/usr/bin/env node
// Bundles the page into dist/page: index.html, app.js, app.css and the
// fonts, everything it loads, so the page needs no network. Fails when what
// the page loads at first would weigh more than the 250 KiB (gzipped) the
// issue allows, or when what it loads on demand (the terminal emulator, in
// chunks/ and xterm.css) passes its own 150 KiB.
import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const pkg = fileURLToPath(new URL("..", import.meta.url));
const out = join(pkg, "dist", "page");
const FIRST_LOAD_LIMIT = 250 * 1024;
const ON_DEMAND_LIMIT = 150 * 1024;

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
  // xterm's stylesheet is its own file, linked by the terminal when it first opens.
  entryPoints: { app: join(pkg, "src", "main.tsx"), xterm: join(pkg, "..", "..", "node_modules", "@xterm", "xterm", "css", "xterm.css") },
  outdir: out,
  absWorkingDir: pkg,
  bundle: true,
  format: "esm",
  // A dynamic import() becomes a chunk loaded when it runs: the terminal emulator is not in the first load.
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
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

const { firstLoad, onDemand } = loads(metafile);
// The page's inputs, for the test that shows no Node module reached it, and where each output loads.
writeFileSync(
  join(pkg, "dist", "page-inputs.json"),
  JSON.stringify({ inputs: Object.keys(metafile.inputs), firstLoad: [...firstLoad], onDemand: [...onDemand] }, null, 1),
);

// Inter ships as one variable font per script; the page carries Latin (other scripts fall back to the system font).
const fonts = join(pkg, "..", "..", "node_modules", "@fontsource-variable", "inter", "files");
for (const name of ["inter-latin-wght-normal.woff2"]) copyFileSync(join(fonts, name), join(out, "fonts", name));
for (const name of ["index.html", "favicon.svg"]) writeFileSync(join(out, name), readFileSync(join(pkg, "src", name)));

const sizes = {};
const totals = { firstLoad: 0, onDemand: 0 };
for (const file of walk(out)) {
  if (file.endsWith(".map")) continue;
  const name = file.slice(out.length + 1);
  const bytes = readFileSync(file);
  const size = file.endsWith(".woff2") ? bytes.length : gzipSync(bytes, { level: 9 }).length;
  sizes[name] = size;
  totals[onDemand.has(name) ? "onDemand" : "firstLoad"] += size;
}
const over = [
  totals.firstLoad > FIRST_LOAD_LIMIT && `what the page loads at first weighs ${kib(totals.firstLoad)} gzipped, over ${kib(FIRST_LOAD_LIMIT)}`,
  totals.onDemand > ON_DEMAND_LIMIT && `what the page loads on demand weighs ${kib(totals.onDemand)} gzipped, over ${kib(ON_DEMAND_LIMIT)}`,
].filter(Boolean);
if (over.length > 0) {
  console.error(`${over.join("; ")}: ${JSON.stringify(sizes)}`);
  process.exit(1);
}
if (process.env.KNIGHTCODE_PAGE_SIZES === "1") {
  console.error(JSON.stringify({ firstLoadGzipBytes: totals.firstLoad, onDemandGzipBytes: totals.onDemand, sizes }));
}

/**
 * The outputs app.js reaches through static imports are loaded with it;
 * every other script or stylesheet is loaded on demand (by an import() or a
 * link the page adds). Files that are neither (the index, the fonts) load
 * at first. Names are relative to dist/page.
 */
function loads(meta) {
  const name = (path) => relative(out, join(pkg, path)).split(sep).join("/");
  const firstLoad = new Set();
  const pending = ["app.js"];
  while (pending.length > 0) {
    const next = pending.pop();
    if (firstLoad.has(next)) continue;
    firstLoad.add(next);
    const output = Object.entries(meta.outputs).find(([path]) => name(path) === next)?.[1];
    if (output?.cssBundle) pending.push(name(output.cssBundle));
    for (const i of output?.imports ?? []) if (i.kind === "import-statement" && !i.external) pending.push(name(i.path));
  }
  const onDemand = new Set(
    Object.keys(meta.outputs)
      .map(name)
      .filter((path) => /\.(js|css)$/.test(path) && !firstLoad.has(path)),
  );
  return { firstLoad, onDemand };
}

function kib(bytes) {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

function* walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else yield path;
  }
}
