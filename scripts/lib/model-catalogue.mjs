// pi-ai's model catalogue, read a provider at a time. pi-ai builds its
// registry of about a thousand models, from a 330 KB object literal, as it
// loads: 5-6 ms and 1.3 MiB of heap in every process, though a thread only
// ever looks at the providers it has a key for. In the bundle the catalogue
// is a JSON file beside the chunks instead, and a provider's models are
// parsed the first time something asks for that provider.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { isDeepStrictEqual } from "node:util";

/** The file the bundle reads, in the bundle's own folder. */
const FILE = "model-catalogue.json";

/**
 * pi-ai's models.js builds its registry from MODELS as it loads; in the
 * bundle these lines are replaced by a registry that reads a provider on
 * first use. The rest of models.js only calls `get` and `keys` on it. The
 * build fails if the lines change, so an upgrade cannot bring the eager
 * load back silently, or break the catalogue.
 */
const EAGER_REGISTRY = `import { MODELS } from "./models.generated.js";
const modelRegistry = new Map();
// Initialize registry from MODELS on module load
for (const [provider, models] of Object.entries(MODELS)) {
    const providerModels = new Map();
    for (const [id, model] of Object.entries(models)) {
        providerModels.set(id, model);
    }
    modelRegistry.set(provider, providerModels);
}
`;

const LAZY_REGISTRY = `import { CATALOGUE_PROVIDERS, readCatalogueProvider } from "./models.generated.js";
const parsedProviders = new Map();
const modelRegistry = {
    keys: () => CATALOGUE_PROVIDERS.values(),
    get(provider) {
        let models = parsedProviders.get(provider);
        if (models === undefined) {
            const read = readCatalogueProvider(provider);
            if (read === undefined) return undefined;
            models = new Map(Object.entries(read));
            parsedProviders.set(provider, models);
        }
        return models;
    },
};
`;

/** The module that stands for models.generated.js: where each provider sits in the file, and how to read one. */
function readerModule(ranges) {
  return `import { closeSync, openSync, readSync } from "node:fs";
import { fileURLToPath } from "node:url";
const FILE = new URL(${JSON.stringify(`./${FILE}`)}, import.meta.url);
/** Each provider's models in the catalogue file: [byte offset, byte length]. */
const RANGES = ${JSON.stringify(ranges)};
export const CATALOGUE_PROVIDERS = Object.keys(RANGES);
/** A provider's models by id, parsed from the file; undefined for a provider the catalogue does not have. */
export function readCatalogueProvider(provider) {
    if (!Object.hasOwn(RANGES, provider)) return undefined;
    const [offset, length] = RANGES[provider];
    const bytes = Buffer.alloc(length);
    let fd;
    try {
        fd = openSync(FILE, "r");
        let read = 0;
        while (read < length) {
            const n = readSync(fd, bytes, read, length - read, offset + read);
            if (n === 0) throw new Error("the file is shorter than the build wrote it");
            read += n;
        }
        return JSON.parse(bytes.toString("utf8"));
    } catch (error) {
        throw new Error(\`the model catalogue \${fileURLToPath(FILE)} cannot be read for \${provider}: \${error.message}; build or install KnightCode again\`, { cause: error });
    } finally {
        if (fd !== undefined) closeSync(fd);
    }
}
`;
}

/**
 * The esbuild plugin, and `write(outdir)` to call once the build is done.
 * The catalogue's text comes from pi-ai's own module, checked to survive
 * JSON provider by provider.
 */
export function modelCatalogue() {
  let text;
  const plugin = {
    name: "pi-ai-model-catalogue",
    setup(b) {
      b.onLoad({ filter: /pi-ai[\\/]dist[\\/]models\.generated\.js$/ }, async (args) => {
        const module = await import(pathToFileURL(args.path).href);
        const names = Object.keys(module);
        if (names.length !== 1 || names[0] !== "MODELS") throw new Error(`${args.path}: expected one export, MODELS; update scripts/lib/model-catalogue.mjs`);
        const ranges = {};
        let body = "{";
        for (const [provider, models] of Object.entries(module.MODELS)) {
          const json = JSON.stringify(models);
          if (!isDeepStrictEqual(JSON.parse(json), models))
            throw new Error(`${args.path}: the models of ${provider} do not survive JSON; update scripts/lib/model-catalogue.mjs`);
          if (body.length > 1) body += ",";
          body += `${JSON.stringify(provider)}:`;
          ranges[provider] = [Buffer.byteLength(body), Buffer.byteLength(json)];
          body += json;
        }
        text = `${body}}\n`;
        return { contents: readerModule(ranges), loader: "js" };
      });
      b.onLoad({ filter: /pi-ai[\\/]dist[\\/]models\.js$/ }, async (args) => {
        const { readFile } = await import("node:fs/promises");
        const source = await readFile(args.path, "utf8");
        if (!source.startsWith(EAGER_REGISTRY)) throw new Error(`${args.path}: the registry's set-up changed; update scripts/lib/model-catalogue.mjs`);
        return { contents: LAZY_REGISTRY + source.slice(EAGER_REGISTRY.length), loader: "js" };
      });
    },
  };
  return {
    plugin,
    write(outdir) {
      if (text === undefined) throw new Error("the bundle holds no pi-ai model catalogue: scripts/lib/model-catalogue.mjs never saw models.generated.js");
      writeFileSync(join(outdir, FILE), text);
    },
  };
}
