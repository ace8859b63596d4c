#!/usr/bin/env node
// The newcomer's walk, done again outside the repository from docs/client.md
// alone: packs the packages a client needs, creates a fresh project in a
// folder of its own, installs the tarballs there, writes the project's files
// from the doc's blocks and compiles them with `tsc --strict`. Prints the
// project's folder; `node dist/main.js <folder> <message>` there runs the
// example (packages/app-server/test/protocol/newcomer.test.ts runs it
// against the scripted model). Needs a built checkout (npm run build) and no
// network: see `offlineLock` for where the registry's packages come from.
//   node scripts/newcomer.mjs [folder]
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/** What a client's project installs: the client and the CLI, and every package of ours they load. */
const PACKED = ["schema", "app-server-protocol", "system", "store", "repo", "agent", "app-server-client", "desktop", "app-server", "cli"];
/** What the project compiles with, at the versions the repository builds with. */
const DEV_TOOLS = ["typescript", "@types/node"];

/** The doc's blocks marked `<!-- newcomer: <file> -->`: the files a reader of docs/client.md writes. */
export function docFiles(doc = readFileSync(join(root, "docs", "client.md"), "utf8")) {
  const files = new Map();
  for (const [, name, text] of doc.matchAll(/<!-- newcomer: (\S+) -->\n```\w*\n([\s\S]*?)```/g)) files.set(name, text);
  return files;
}

function run(command, args, cwd) {
  return execFileSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/** `npm pack` of our packages into `dir`: what a registry would hold, built from this checkout. */
function pack(dir) {
  const workspaces = PACKED.flatMap((name) => ["--workspace", `packages/${name}`]);
  const packed = JSON.parse(run(npm, ["pack", ...workspaces, "--pack-destination", dir, "--json"], root));
  return new Map(packed.map((p) => [p.name, { file: p.filename, integrity: p.integrity, version: p.version }]));
}

/**
 * The project's lockfile, so that `npm install --offline` needs no
 * registry: our packages from their tarballs, and everything else at the
 * version this repository's lockfile pins, which `npm ci` left in npm's
 * cache. With a registry, a reader's own `npm install` resolves the same.
 */
function offlineLock(manifest, packs) {
  const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")).packages;
  const packages = { "": manifest };
  const ours = new Map();
  for (const [path, entry] of Object.entries(lock)) {
    if (path.startsWith("packages/") && !path.includes("node_modules") && packs.has(entry.name)) ours.set(path, entry.name);
  }
  for (const [path, entry] of Object.entries(lock)) {
    if (path === "" || entry.link || path.startsWith("node_modules/@knightcode/")) continue;
    const nested = path.match(/^(packages\/[^/]+)\/(node_modules\/.+)$/);
    if (nested) {
      const owner = ours.get(nested[1]);
      if (owner) packages[`node_modules/${owner}/${nested[2]}`] = entry;
    } else if (path.startsWith("node_modules/")) packages[path] = entry;
  }
  for (const [path, name] of ours) {
    const { version, dependencies } = lock[path];
    const { file, integrity } = packs.get(name);
    packages[`node_modules/${name}`] = { version, resolved: `file:../packs/${file}`, integrity, ...(dependencies ? { dependencies } : {}) };
  }
  return { name: manifest.name, version: manifest.version, lockfileVersion: 3, requires: true, packages };
}

/** Packs, creates the project in `dir`, installs offline and compiles; returns the project's folder. */
export function createNewcomerProject(dir) {
  const packsDir = join(dir, "packs");
  const project = join(dir, "my-client");
  mkdirSync(packsDir, { recursive: true });
  mkdirSync(project, { recursive: true });
  const packs = pack(packsDir);
  const rootManifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const manifest = {
    name: "my-client",
    version: "1.0.0",
    private: true,
    type: "module",
    dependencies: Object.fromEntries([...packs].map(([name, { file }]) => [name, `file:../packs/${file}`])),
    devDependencies: Object.fromEntries(DEV_TOOLS.map((name) => [name, rootManifest.devDependencies[name]])),
  };
  writeFileSync(join(project, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(join(project, "package-lock.json"), `${JSON.stringify(offlineLock(manifest, packs), null, 2)}\n`);
  run(npm, ["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts"], project);
  for (const [name, text] of docFiles()) {
    mkdirSync(join(project, name, ".."), { recursive: true });
    writeFileSync(join(project, name), text);
  }
  run(process.execPath, [join(project, "node_modules", "typescript", "bin", "tsc"), "--strict", "-p", project], project);
  return project;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dir = process.argv[2] ?? mkdtempSync(join(tmpdir(), "kc-newcomer-"));
  try {
    process.stdout.write(`${createNewcomerProject(dir)}\n`);
  } catch (error) {
    process.stderr.write(`newcomer: ${error.stderr || error.stdout || error.message}\n`);
    process.exitCode = 1;
  }
}
