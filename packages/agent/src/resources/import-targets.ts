import { readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isDirectory } from "@knightcode/system/fs/is-directory";

/** A file an import can load, or a package folder whose files it can. */
export interface ImportTarget {
  /** Absolute, as resolution names it (links not resolved). */
  path: string;
  folder: boolean;
}

/**
 * The suffixes the extension loader (jiti 2.7, as ../extensions/factory-cache.ts
 * sets it up) tries after a specifier and after a folder's `index`. It does
 * not try `.jsx`; listing one more only asks more. The list is checked
 * against the real loader by test/resources/import-targets.test.ts.
 */
const SUFFIXES = [".ts", ".mts", ".cts", ".js", ".mjs", ".cjs", ".tsx", ".jsx", ".json"];
/** A JavaScript name written for the TypeScript file the loader finds beside it. */
const SWAPS: [RegExp, string[]][] = [
  [/\.js$/, [".ts", ".tsx"]],
  [/\.mjs$/, [".mts"]],
  [/\.cjs$/, [".cts"]],
  [/\.jsx$/, [".ts", ".tsx"]],
];
const MAX_MANIFEST_BYTES = 256 * 1024;
const MAX_IMPORT_TARGETS = 100;
const BUILTINS = new Set(builtinModules);

/**
 * Every path the specifier `specifier`, imported by the file `importer`,
 * can load: the files that load today and those that would if they were
 * created (an optional import is code the moment someone writes it), plus
 * the manifests that decide between them. Relative, absolute and `file:`
 * specifiers name files; a bare one a `node_modules` folder above the
 * importer; `#name` the nearest package.json's `imports`.
 * Built-in modules and other URL schemes load nothing from disk.
 */
export function importTargets(specifier: string, importer: string): ImportTarget[] {
  const files = (paths: string[]): ImportTarget[] => paths.map((path) => ({ path, folder: false }));
  if (specifier.startsWith("./") || specifier.startsWith("../") || specifier === "." || specifier === "..") {
    return files(fileCandidates(resolve(dirname(importer), specifier)));
  }
  if (specifier.startsWith("/")) return files(fileCandidates(resolve(specifier)));
  if (specifier.startsWith("file:")) {
    try {
      return files(fileCandidates(fileURLToPath(specifier)));
    } catch {
      return [];
    }
  }
  if (specifier.startsWith("#")) return subpathImportTargets(specifier, importer);
  if (specifier.startsWith("node:") || BUILTINS.has(specifier) || /^[a-z][a-z0-9+.-]*:/i.test(specifier)) return [];
  return packageTargets(specifier, importer);
}

/** The files a path can load as a module: as written, with a suffix, its TypeScript twin, or as a folder. */
function fileCandidates(path: string): string[] {
  const out = [path, ...SUFFIXES.map((suffix) => path + suffix)];
  for (const [pattern, twins] of SWAPS) {
    const match = pattern.exec(path);
    if (match) out.push(...twins.map((twin) => path.slice(0, match.index) + twin));
  }
  return [...out, ...folderCandidates(path)];
}

/** A folder loads its package.json's `main` when that exists, else its `index`; the manifest itself decides, so it counts. */
function folderCandidates(folder: string): string[] {
  const out = [join(folder, "package.json"), ...SUFFIXES.map((suffix) => join(folder, `index${suffix}`))];
  const main = readManifest(folder)?.main;
  if (typeof main === "string" && main !== "") {
    const path = resolve(folder, main);
    out.push(path, ...SUFFIXES.map((suffix) => path + suffix), ...SUFFIXES.map((suffix) => join(path, `index${suffix}`)));
  }
  return out;
}

/**
 * A bare specifier's package: `node_modules/<name>` in the importer's folder
 * and each folder above it, up to the first that exists (a nearer one
 * created later would win). The `node_modules` folder holding that one
 * counts as a whole: its packages load each other, so any of them is code.
 */
function packageTargets(specifier: string, importer: string): ImportTarget[] {
  const parts = specifier.split("/");
  const nameLength = specifier.startsWith("@") ? 2 : 1;
  if (parts.length < nameLength || parts.slice(0, nameLength).some((part) => part === "" || part === "." || part === "..")) return [];
  const name = parts.slice(0, nameLength).join("/");
  const out: ImportTarget[] = [];
  for (let folder = dirname(importer); ; folder = dirname(folder)) {
    if (basename(folder) !== "node_modules") {
      const modules = join(folder, "node_modules");
      if (isDirectory(join(modules, name))) {
        out.push({ path: modules, folder: true });
        break;
      }
      out.push({ path: join(modules, name), folder: true }, ...SUFFIXES.map((suffix) => ({ path: join(modules, name) + suffix, folder: false })));
    }
    if (dirname(folder) === folder) break;
  }
  return out;
}

/**
 * `#name` resolves through the `imports` of the nearest package.json above
 * the importer. Each package.json on the way counts (creating one there
 * changes where the name points), then every target the matching entries
 * name, whatever the conditions.
 */
function subpathImportTargets(specifier: string, importer: string): ImportTarget[] {
  const out: ImportTarget[] = [];
  for (let folder = dirname(importer); ; folder = dirname(folder)) {
    out.push({ path: join(folder, "package.json"), folder: false });
    const manifest = readManifest(folder);
    if (manifest !== undefined) {
      const imports = manifest.imports;
      if (imports !== null && typeof imports === "object" && !Array.isArray(imports)) {
        for (const [key, value] of Object.entries(imports as Record<string, unknown>)) {
          const star = key.indexOf("*");
          const matches = star === -1 ? key === specifier : specifier.startsWith(key.slice(0, star)) && specifier.endsWith(key.slice(star + 1));
          if (!matches) continue;
          const rest = star === -1 ? "" : specifier.slice(star, specifier.length - (key.length - star - 1));
          const leaves: string[] = [];
          collectStrings(value, leaves);
          for (const leaf of leaves) {
            const target = leaf.replaceAll("*", rest);
            out.push(
              ...(target.startsWith("./")
                ? fileCandidates(resolve(folder, target)).map((path) => ({ path, folder: false }))
                : importTargets(target, join(folder, "package.json"))),
            );
          }
        }
      }
      break;
    }
    if (dirname(folder) === folder) break;
  }
  return out;
}

function collectStrings(value: unknown, into: string[]): void {
  if (into.length >= MAX_IMPORT_TARGETS) return;
  if (typeof value === "string") into.push(value);
  else if (Array.isArray(value)) for (const item of value) collectStrings(item, into);
  else if (value !== null && typeof value === "object") for (const item of Object.values(value)) collectStrings(item, into);
}

/** A folder's package.json as an object, or undefined when it has none (or one no loader could read). */
function readManifest(folder: string): Record<string, unknown> | undefined {
  const file = join(folder, "package.json");
  try {
    if (statSync(file).size > MAX_MANIFEST_BYTES) return undefined;
    const parsed: unknown = JSON.parse(readFileSync(file, "utf8"));
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
