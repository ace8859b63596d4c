// Writes generated files, or with --check writes nothing and says which are
// stale: the one way every generator here (the method table, the protocol's
// JSON Schema and types, the schemas' plain copies) keeps its output fresh.
import { readFileSync, writeFileSync } from "node:fs";

/**
 * `targets` are [path, text] pairs; `rerun` is the command that rewrites
 * them, named in the message for a stale file. Exits 1 when --check finds
 * one stale.
 */
export function writeGenerated(targets, rerun) {
  const check = process.argv.includes("--check");
  let stale = 0;
  for (const [path, text] of targets) {
    let current = null;
    try {
      current = readFileSync(path, "utf8");
    } catch {}
    if (current === text) continue;
    if (check) {
      console.error(`stale: ${path} (run ${rerun})`);
      stale++;
    } else {
      writeFileSync(path, text);
      console.error(`wrote ${path}`);
    }
  }
  process.exit(stale === 0 ? 0 : 1);
}
