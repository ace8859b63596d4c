// The listing, the engine and the thread layer, each as one load. The
// source loads its heavy parts lazily, a dynamic import each: a method's
// handler, the thread catalogue, the thread manager and what it opens, the
// thread runtime, the model registry and the engine. esbuild makes every
// dynamic import target an entry, and splits the code they share into a
// chunk per set of entries that reach it. On the way to a first
// thread/start that came to 109 modules joined by 520 imports, and Node's
// module loader spends about 0.15 ms on each module and 30 µs on each
// import before any of it runs.
//
// In the bundle, a dynamic import of a layer's part loads the layer's one
// module instead and takes its part from it. Every part of a layer is then
// reached from the same entry, so esbuild keeps the layer together (beside
// the chunks it shares with what stays apart), and the first use of any part
// loads all of it, as the server's warm-up does shortly after the handshake
// anyway. Three layers:
//
// - the listing: thread/list's handler with the thread catalogue it reads,
//   so a new process's first listing loads in one go, and answers ahead of
//   a model/list sent with it rather than waiting out the engine's compile
//   between its two loads;
// - the engine: the model registry with pi-ai and pi-agent-core, which
//   model/list and account/read need without any thread;
// - the thread layer: the thread manager, what it opens, the thread runtime,
//   and the handlers of every method but those a client asks before it
//   opens a thread (APART), which keep loads of their own: a new process's
//   first thread/list, model/list, config/read and account/read do not wait
//   for a layer they do not use.
//
// What else stays apart: the model providers and their SDKs (one loads per
// model API in use), the trust store (config/read's), and everything else
// that is no part of a thread. Only our own compiled files are rewritten
// (`packages/*/dist/src`), and only a dynamic import whose string names a
// part. The build fails if a part listed here is gone, is listed twice, or
// is no longer loaded by any dynamic import.
import { existsSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";

/** The method table, whose dynamic imports are the handlers. */
const TABLE = "packages/app-server/dist/src/methods/table.js";
/** Methods a client asks before it opens a thread, and which need none: their handlers stay out of the thread layer. */
const APART = ["thread/list", "model/list", "config/read", "account/read"];

const LAYERS = [
  {
    name: "listing",
    parts: ["packages/app-server/dist/src/methods/thread/list.js", "packages/app-server/dist/src/threads/catalog.js"],
    packages: [],
    handlers: false,
  },
  {
    name: "engine",
    parts: ["packages/app-server/dist/src/models/registry.js"],
    packages: ["@mariozechner/pi-ai", "@mariozechner/pi-agent-core"],
    handlers: false,
  },
  {
    name: "threads",
    parts: [
      "packages/app-server/dist/src/threads/manager.js",
      "packages/app-server/dist/src/threads/open-thread.js",
      "packages/app-server/dist/src/threads/environment.js",
      "packages/agent/dist/src/thread/runtime.js",
    ],
    packages: [],
    handlers: true,
  },
];

const NAMESPACE = "knightcode-layer";
const PREFIX = "knightcode-layer:";
/** A file of ours as tsc writes it, where the dynamic imports to rewrite are. */
const OURS = /[\\/]packages[\\/][^\\/]+[\\/]dist[\\/]src[\\/].+\.js$/;
/** A dynamic import of a string, as tsc writes it. */
const DYNAMIC_IMPORT = /\bimport\("([^"]+)"\)/g;

/** The esbuild plugin. */
export function layers(root) {
  const at = (path) => join(root, path);
  /** Each part's layer and place in it, filled at the build's start so a layer's module never misses one. */
  const place = new Map();
  const members = new Map();
  const reached = new Set();
  const add = (layer, path) => {
    if (place.has(path)) throw new Error(`${path} is listed in two layers; update scripts/lib/layers.mjs`);
    const list = members.get(layer) ?? [];
    members.set(layer, list);
    place.set(path, { layer, index: list.length });
    list.push(path);
  };
  return {
    name: "layers",
    setup(b) {
      b.onStart(async () => {
        place.clear();
        members.clear();
        reached.clear();
        const table = at(TABLE);
        const missing = [table, ...LAYERS.flatMap((layer) => layer.parts.map(at))].filter((path) => !existsSync(path));
        if (missing.length > 0) return { errors: [{ text: `${missing.join(", ")}: gone; update scripts/lib/layers.mjs` }] };
        const handlers = [...readFileSync(table, "utf8").matchAll(/"([^"]+)": \(\) => import\("(\.[^"]+)"\)/g)];
        const unknown = APART.filter((method) => !handlers.some(([, name]) => name === method));
        if (handlers.length < 10 || unknown.length > 0)
          return { errors: [{ text: `${table}: the handlers are not as listed (${unknown.join(", ")}); update scripts/lib/layers.mjs` }] };
        try {
          for (const layer of LAYERS) {
            if (layer.handlers) for (const [, method, file] of handlers) if (!APART.includes(method)) add(layer.name, join(dirname(table), file));
            for (const path of layer.parts) add(layer.name, at(path));
            for (const name of layer.packages) {
              const found = await b.resolve(name, { resolveDir: at("packages/agent/dist/src/models"), kind: "dynamic-import" });
              if (found.errors.length > 0) return { errors: found.errors };
              add(layer.name, found.path);
            }
          }
        } catch (error) {
          return { errors: [{ text: error.message }] };
        }
        return undefined;
      });
      b.onLoad({ filter: OURS }, async (args) => {
        const source = await readFile(args.path, "utf8");
        const rewrite = new Map();
        for (const [whole, specifier] of source.matchAll(DYNAMIC_IMPORT)) {
          if (rewrite.has(whole)) continue;
          const found = await b.resolve(specifier, { resolveDir: dirname(args.path), importer: args.path, kind: "dynamic-import" });
          const part = found.errors.length === 0 ? place.get(found.path) : undefined;
          if (part === undefined) continue;
          reached.add(found.path);
          rewrite.set(whole, `import(${JSON.stringify(PREFIX + part.layer)}).then((layer) => layer.part${part.index})`);
        }
        if (rewrite.size === 0) return undefined;
        return { contents: source.replace(DYNAMIC_IMPORT, (whole) => rewrite.get(whole) ?? whole), loader: "js" };
      });
      // The layer's module is named after it in the bundle: `threads-layer-<hash>.mjs`.
      b.onResolve({ filter: /^knightcode-layer:/ }, (args) => ({ path: `${args.path.slice(PREFIX.length)}-layer`, namespace: NAMESPACE }));
      b.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => ({
        contents: (members.get(args.path.replace(/-layer$/, "")) ?? []).map((path, i) => `export * as part${i} from ${JSON.stringify(path)};`).join("\n"),
        loader: "js",
        resolveDir: root,
      }));
      b.onEnd((result) => {
        if (result.errors.length > 0) return;
        const unreached = [...place.keys()].filter((path) => !reached.has(path));
        if (unreached.length > 0) result.errors.push({ text: `no dynamic import loads ${unreached.join(", ")}; update scripts/lib/layers.mjs` });
      });
    },
  };
}
