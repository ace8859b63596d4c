import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root, from packages/cli/dist/test. */
export const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
/** The bundle the server runs (scripts/build.mjs). */
export const BUNDLE = join(ROOT, "packages", "cli", "dist", "bundle");

/** The names of the bundle's modules: its entry and every chunk. */
export function bundleModules(): string[] {
  return readdirSync(BUNDLE).filter((name) => name.endsWith(".mjs"));
}

/** One module's text, by its name in the bundle. */
export function moduleText(name: string): string {
  return readFileSync(join(BUNDLE, name), "utf8");
}

/** Every module of the bundle, one after another: what a test searches for what the build put in or left out. */
export function bundleText(): string {
  return bundleModules().map(moduleText).join("\n");
}
