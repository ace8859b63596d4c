#!/usr/bin/env node
// Prints, for each package, which of its source folders import which: the
// drawing of the house in docs/architecture.md. A pair of folders that import
// each other is marked; so is a package that imports one that imports it.
// The files at a package's src/ root are shown as "(root)": they are the
// package's entry and composition root, which imports the folders and whose
// shared types (the server's context, say) the folders may use, so edges to
// and from it are listed but not marked.
//
//   node scripts/folder-graph.mjs [repo root]   print it
//   node scripts/folder-graph.mjs --write       put it in docs/architecture.md
//   node scripts/folder-graph.mjs --check       fail when the doc's drawing is stale, or the house
//                                               has a pair of folders importing each other, a
//                                               source file over 400 lines or an `export *`
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const mode = process.argv[2] === "--write" || process.argv[2] === "--check" ? process.argv[2] : undefined;
const root = resolve((mode ? undefined : process.argv[2]) ?? fileURLToPath(new URL("..", import.meta.url)));
const IMPORT = /(?:^|[^\w.])(?:import|export)\s*(?:[^"';]*?\sfrom\s*)?\(?\s*["']([^"']+)["']/gm;

function sources(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sources(path, out);
    else if (/\.tsx?$/.test(name) && !name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

function folderOf(srcRoot, file) {
  const parts = relative(srcRoot, file).split(sep);
  return parts.length > 1 ? parts[0] : "(root)";
}

const MAX_LINES = 400;
const GENERATED = /[/\\]generated[/\\]/;
const problems = [];
const packages = readdirSync(join(root, "packages")).sort();
const packageEdges = new Map();
const lines = [];
for (const pkg of packages) {
  const srcRoot = join(root, "packages", pkg, "src");
  let files;
  try {
    files = sources(srcRoot);
  } catch {
    continue;
  }
  const edges = new Map();
  for (const file of files) {
    const from = folderOf(srcRoot, file);
    const text = readFileSync(file, "utf8");
    const lineCount = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    if (lineCount > MAX_LINES && !GENERATED.test(file)) problems.push(`${relative(root, file)} has ${lineCount} lines (at most ${MAX_LINES})`);
    if (/^export \* from/m.test(text)) problems.push(`${relative(root, file)} re-exports with export *`);
    for (const match of text.matchAll(IMPORT)) {
      const spec = match[1];
      if (spec.startsWith("@knightcode/")) {
        const target = spec.split("/")[1];
        if (!packageEdges.has(pkg)) packageEdges.set(pkg, new Set());
        if (target !== pkg) packageEdges.get(pkg).add(target);
        continue;
      }
      if (!spec.startsWith(".")) continue;
      const to = folderOf(srcRoot, resolve(dirname(file), spec));
      if (to === from || to.startsWith("..")) continue;
      if (!edges.has(from)) edges.set(from, new Set());
      edges.get(from).add(to);
    }
  }
  if (edges.size === 0) continue;
  lines.push(`${pkg}:`);
  for (const from of [...edges.keys()].sort()) {
    const both = (to) => edges.get(to)?.has(from) && from !== "(root)" && to !== "(root)";
    for (const to of edges.get(from)) if (both(to) && from < to) problems.push(`${pkg}: ${from} and ${to} import each other`);
    const targets = [...edges.get(from)].sort().map((to) => (both(to) ? `${to} (both ways)` : to));
    lines.push(`  ${from.padEnd(14)} -> ${targets.join(", ")}`);
  }
}
const mutualPackages = [];
for (const [from, targets] of packageEdges)
  for (const to of targets)
    if (from < to && packageEdges.get(to)?.has(from)) {
      mutualPackages.push(`${from}<>${to}`);
      problems.push(`packages ${from} and ${to} import each other`);
    }
const header = ["packages:"];
for (const pkg of [...packageEdges.keys()].sort()) header.push(`  ${pkg.padEnd(20)} -> ${[...packageEdges.get(pkg)].sort().join(", ") || "(none)"}`);
if (mutualPackages.length) header.push(`  packages importing each other: ${mutualPackages.join(", ")}`);
const drawing = [...header, ...lines].join("\n");
const BEGIN = "<!-- folder-graph: begin (node scripts/folder-graph.mjs --write) -->";
const END = "<!-- folder-graph: end -->";
if (mode === undefined) {
  console.log(drawing);
} else {
  const docPath = join(root, "docs", "architecture.md");
  const doc = readFileSync(docPath, "utf8");
  const from = doc.indexOf(BEGIN);
  const to = doc.indexOf(END);
  if (from === -1 || to < from) problems.push(`${docPath} has no folder-graph markers`);
  else {
    const fresh = `${doc.slice(0, from + BEGIN.length)}\n\n\`\`\`\n${drawing}\n\`\`\`\n\n${doc.slice(to)}`;
    if (mode === "--write") writeFileSync(docPath, fresh);
    else if (fresh !== doc) problems.push("docs/architecture.md: the drawing of the house is stale; run node scripts/folder-graph.mjs --write");
  }
  if (mode === "--check" && problems.length > 0) {
    for (const problem of problems) console.error(problem);
    process.exit(1);
  }
}
