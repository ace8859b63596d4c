import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Api, Model } from "@mariozechner/pi-ai";
import { distinctModels, type ProviderGroup } from "../../src/models/distinct.js";

const model = (provider: string, id: string) => ({ provider, id }) as Model<Api>;
const reason = { kind: "noCredentials" as const, message: "no key" };

/** A group whose models count their reads; `unreadable` ones fail the test if anything reads them. */
function group(provider: string, source: ProviderGroup["source"], ids: string[], reads: Map<string, number>, unreadable = false): ProviderGroup {
  return {
    provider,
    source,
    models: () => {
      if (unreadable) assert.fail(`${source} ${provider}'s models were read`);
      reads.set(`${source}:${provider}`, (reads.get(`${source}:${provider}`) ?? 0) + 1);
      return ids.map((id) => model(provider, id));
    },
  };
}

const listed = (models: Iterable<{ model: Model<Api>; source: string; available: boolean }>) =>
  [...models].map(({ model, source, available }) => `${source}:${model.provider}/${model.id}${available ? "" : " (unavailable)"}`);

describe("the registry's distinct models", () => {
  test("every model once, the first entry of a provider and id shadowing the later ones", () => {
    const reads = new Map<string, number>();
    const groups = [
      group("openai", "extension", ["a"], reads),
      group("openai", "custom", ["a", "b"], reads),
      group("openai", "builtin", ["b", "c"], reads),
      group("anthropic", "builtin", ["x"], reads),
    ];
    const available = (g: ProviderGroup) => g.provider === "openai";
    assert.deepEqual(listed(distinctModels(groups, available, () => reason)), [
      "extension:openai/a",
      "custom:openai/b",
      "builtin:openai/c",
      "builtin:anthropic/x (unavailable)",
    ]);
  });

  test("for the usable models, a built-in provider without credentials is never read", () => {
    const reads = new Map<string, number>();
    const groups = [
      group("local", "custom", ["m"], reads),
      group("openai", "builtin", ["b"], reads, true),
      group("anthropic", "builtin", ["x"], reads),
      group("google", "builtin", ["g"], reads, true),
    ];
    const available = (g: ProviderGroup) => g.provider === "local" || g.provider === "anthropic";
    assert.deepEqual(listed(distinctModels(groups, available, () => reason, { availableOnly: true })), ["custom:local/m", "builtin:anthropic/x"]);
    assert.deepEqual(Object.fromEntries(reads), { "custom:local": 1, "builtin:anthropic": 1 });
  });

  test("a custom or extension provider without credentials still shadows a later one's models", () => {
    // An extension without a key, then models.json's provider of the same name with one: the
    // extension's entry comes first, so its model is the one listed, and it is not usable.
    const reads = new Map<string, number>();
    const groups = [group("acme", "extension", ["a"], reads), group("acme", "custom", ["a", "b"], reads), group("openai", "builtin", ["o"], reads, true)];
    const available = (g: ProviderGroup) => g.source === "custom";
    assert.deepEqual(listed(distinctModels(groups, available, () => reason, { availableOnly: true })), ["custom:acme/b"]);
    assert.deepEqual(
      listed(distinctModels(groups.slice(0, 2), available, () => reason)),
      ["extension:acme/a (unavailable)", "custom:acme/b"],
      "the full list agrees: the shadowed entry is the one that is not usable",
    );
  });
});
