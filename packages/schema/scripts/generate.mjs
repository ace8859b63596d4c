#!/usr/bin/env node
// Writes src/generated/*.ts, the plain-data copies of the schemas the agent
// checks files with at run time. With --check, writes nothing and exits 1
// when a copy is stale. Needs a build of this package (tsc -b).
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { GENERATED } from "../dist/src/generated-list.js";
import { renderPlainModule } from "../dist/src/plain.js";

let stale = 0;
for (const { file, source, schemas } of GENERATED) {
  const path = fileURLToPath(new URL(`../src/generated/${file}`, import.meta.url));
  const next = renderPlainModule(source, schemas);
  let current = null;
  try {
    current = readFileSync(path, "utf8");
  } catch {}
  if (current === next) continue;
  if (process.argv.includes("--check")) {
    console.error(`stale: ${path} (run npm run generate in packages/schema)`);
    stale++;
  } else {
    writeFileSync(path, next);
    console.error(`wrote ${path}`);
  }
}
process.exit(stale > 0 ? 1 : 0);
