// One copy of each version of a bundled package. npm installs a package
// once per place that needs a version the root's node_modules does not
// hold: lru-cache 11 sits in the agent's, the app server's and the repo
// package's own node_modules, because the root's holds version 7 for
// pi-ai's proxy agent. Resolved from each importer, the three copies of
// the same files were three modules to esbuild, so the bundle carried
// lru-cache three times: three times the code for a new process to
// compile on its way to a first thread, three classes for V8 to warm.
//
// This plugin sends every import of a bundled package to one copy of its
// version: the first of its copies in path order, among the root's
// node_modules and each workspace package's. A version found once, or
// a package whose copies all differ, resolves as before, so each package
// still runs the version it pinned. The build fails if the chosen copy
// lacks the file the import resolved to in another.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";

/** A bare specifier's package name: `a` of `a/b`, `@s/a` of `@s/a/b`. */
function packageName(specifier) {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

function versionAt(dir) {
  try {
    return JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version;
  } catch {
    return undefined;
  }
}

/**
 * `name`'s installed copies, as a map from each copy's folder to the
 * folder of the copy of its version that every import goes to.
 */
function copiesOf(root, name) {
  const places = [join(root, "node_modules")];
  const workspaces = join(root, "packages");
  for (const entry of existsSync(workspaces) ? readdirSync(workspaces).sort() : []) places.push(join(workspaces, entry, "node_modules"));
  const chosen = new Map();
  const copies = new Map();
  for (const place of places) {
    const dir = join(place, name);
    const version = versionAt(dir);
    if (version === undefined) continue;
    if (!chosen.has(version)) chosen.set(version, dir);
    copies.set(dir, chosen.get(version));
  }
  return copies;
}

/**
 * The esbuild plugin: `isBundled(specifier)` says which bare imports the
 * bundle takes in; only those of packages other than our own are rewritten.
 */
export function oneCopyPerVersion(root, isBundled) {
  const byName = new Map();
  const copies = (name) => {
    if (!byName.has(name)) byName.set(name, copiesOf(root, name));
    return byName.get(name);
  };
  return {
    name: "one-copy-per-version",
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.pluginData?.oneCopy || args.path.startsWith("node:") || args.path.startsWith("@knightcode/") || !isBundled(args.path)) return undefined;
        const resolved = await b.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: { oneCopy: true } });
        if (resolved.errors.length > 0 || resolved.external) return resolved;
        const name = packageName(args.path);
        for (const [dir, target] of copies(name)) {
          if (!resolved.path.startsWith(dir + sep)) continue;
          if (target === dir) break;
          const inside = relative(dir, resolved.path);
          const path = join(target, inside);
          if (!existsSync(path)) throw new Error(`${name}: ${dir} resolves to ${inside}, which the copy of its version the bundle takes (${target}) lacks`);
          return { ...resolved, path };
        }
        return resolved;
      });
    },
  };
}
