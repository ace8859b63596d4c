import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { BUNDLE, moduleExporting, moduleText } from "./bundle-support.js";

interface Catalogue {
  getProviders(): string[];
  getModels(provider: string): { provider: string; id: string }[];
  getModel(provider: string, id: string): unknown;
}

/** The chunk holding pi-ai's model registry (scripts/lib/model-catalogue.mjs). */
function registryChunk(): string {
  const name = moduleExporting("getProviders");
  assert.ok(name, "a chunk exports getProviders");
  return name;
}

const scratch = mkdtempSync(join(tmpdir(), "kc-catalogue-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** The registry's chunk alone in a folder of its own, beside the catalogue text given (none: no file). */
async function registryBeside(catalogue: string | undefined, label: string): Promise<Catalogue> {
  const chunk = registryChunk();
  // The chunk must stand alone to be copied: it imports Node's modules and nothing of the bundle.
  assert.doesNotMatch(moduleText(chunk), /from\s*"\.\//, "the registry's chunk imports no other chunk");
  const folder = join(scratch, label);
  mkdirSync(folder);
  copyFileSync(join(BUNDLE, chunk), join(folder, "registry.mjs"));
  if (catalogue !== undefined) writeFileSync(join(folder, "model-catalogue.json"), catalogue);
  return (await import(pathToFileURL(join(folder, "registry.mjs")).href)) as Catalogue;
}

describe("the bundle's model catalogue", () => {
  test("lists what pi-ai's own registry lists, provider by provider", async () => {
    const bundled = (await import(pathToFileURL(join(BUNDLE, registryChunk())).href)) as Catalogue;
    const original = (await import("@mariozechner/pi-ai")) as unknown as Catalogue;
    assert.deepEqual(bundled.getProviders(), original.getProviders());
    assert.ok(bundled.getProviders().length > 10);
    for (const provider of original.getProviders()) assert.deepEqual(bundled.getModels(provider), original.getModels(provider), provider);
    assert.deepEqual(bundled.getModels("no-such-provider"), []);
    assert.deepEqual(bundled.getModels("__proto__"), []);
    assert.equal(bundled.getModel("no-such-provider", "x"), undefined);
  });

  test("reads a provider on its first use, and names a damaged catalogue", async () => {
    const text = readFileSync(join(BUNDLE, "model-catalogue.json"), "utf8");
    const original = (await import("@mariozechner/pi-ai")) as unknown as Catalogue;
    const providers = original.getProviders();
    const [first, last] = [providers[0]!, providers.at(-1)!];
    // Cut off where the last provider begins: every other provider still reads whole.
    const cut = text.slice(0, text.lastIndexOf(`${JSON.stringify(last)}:`));
    const damaged = await registryBeside(cut, "cut");
    assert.deepEqual(damaged.getProviders(), providers, "listing the providers reads none of them");
    assert.deepEqual(damaged.getModels(first), original.getModels(first));
    assert.throws(
      () => damaged.getModels(last),
      (error: Error) => {
        assert.match(error.message, new RegExp(`the model catalogue .*model-catalogue\\.json cannot be read for ${last}: .*build or install KnightCode again`));
        return true;
      },
    );

    const missing = await registryBeside(undefined, "missing");
    assert.deepEqual(missing.getProviders(), providers);
    assert.throws(() => missing.getModels(first), /the model catalogue .* cannot be read for .*ENOENT/);
  });
});
