#!/usr/bin/env node
// Writes src/generated/*.ts, the plain-data copies of the schemas the agent
// checks files with at run time. With --check, writes nothing and exits 1
// when a copy is stale. Needs a build of this package (tsc -b).
import { fileURLToPath } from "node:url";
import { writeGenerated } from "../../../scripts/lib/generated-files.mjs";
import { GENERATED } from "../dist/src/generated-list.js";
import { renderPlainModule } from "../dist/src/plain.js";

writeGenerated(
  GENERATED.map(({ file, source, schemas }) => [fileURLToPath(new URL(`../src/generated/${file}`, import.meta.url)), renderPlainModule(source, schemas)]),
  "npm run generate in packages/schema",
);
