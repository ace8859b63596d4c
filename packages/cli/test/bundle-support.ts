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

/** The chunks a module imports statically, and the packages it imports statically by name. */
export function staticImports(source: string): { chunks: string[]; packages: string[] } {
  const chunks: string[] = [];
  const packages: string[] = [];
  // The bundle is minified: `import{a,b}from"./chunk.mjs";`, `import"./chunk.mjs";`, `export{a}from"x";`.
  for (const [, specifier] of source.matchAll(/(?:^|;)\s*(?:import|export)\s*(?:[\w${},\s*]+?from\s*)?"([^"]+)"/g)) {
    if (specifier!.startsWith("./")) chunks.push(specifier!.slice(2));
    else if (!specifier!.startsWith("node:")) packages.push(specifier!);
  }
  return { chunks, packages };
}

/** The name of the bundle's module that exports `name`; undefined when none does. */
export function moduleExporting(name: string): string | undefined {
  return bundleModules().find((file) => new RegExp(`export\\s*\\{[^}]*\\b${name}\\b[^}]*\\}`).test(moduleText(file)));
}
