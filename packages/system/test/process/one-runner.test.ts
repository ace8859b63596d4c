import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";

const PACKAGES = fileURLToPath(new URL("../../../../", import.meta.url));

/**
 * The files that may start a process themselves. Everything the server
 * starts for the model, a repository or an extension goes through the
 * runner (`launch`), which owns the environment scrub, git's guards, the
 * process group, abort and the sandbox. Not the server's: the client
 * library starting the server it talks to, `knightcode desktop` opening the
 * user's own browser (which must outlive the server, so no group of ours
 * may own it), and the test kit.
 */
const ALLOWED = new Set([
  "system/src/process/launch.ts",
  // The runner's terminal mode: node-pty spawns, on the command line and environment launch makes, into a group the owner holds.
  "system/src/process/pty-launch.ts",
  "app-server-client/src/transports/stdio.ts",
  "cli/src/desktop.ts",
]);
/** The test kit starts what tests need (git fixtures, another user, an impostor listener): it is no part of the server. */
const ALLOWED_PACKAGES = new Set(["testkit"]);

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name === "dist") continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sources(path, out);
    else if (/\.(ts|tsx|mts|cts)$/.test(name) && !name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

test("no source file but the runner starts a process (node:child_process, or a spawn helper package, node-pty included)", () => {
  const offenders: string[] = [];
  for (const pkg of readdirSync(PACKAGES)) {
    if (ALLOWED_PACKAGES.has(pkg)) continue;
    const src = join(PACKAGES, pkg, "src");
    if (!statSync(src, { throwIfNoEntry: false })?.isDirectory()) continue;
    for (const file of sources(src)) {
      const name = relative(PACKAGES, file);
      if (ALLOWED.has(name)) continue;
      const text = readFileSync(file, "utf8");
      if (/["'](node:)?child_process["']|["'](cross-spawn|execa)["']|(from\s*|\(\s*|=\s*)["']node-pty["']|sdk\/client\/stdio|\bprocess\.binding\(/.test(text))
        offenders.push(name);
    }
  }
  assert.deepEqual(offenders, [], "these start processes without the runner");
});
