import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import type { ModelSummary } from "@knightcode/app-server-protocol";
import { arrange, refOf } from "../src/features/composer/model-match.js";

const model = (provider: string, id: string, name: string, available: boolean) => ({ provider, id, name, available }) as ModelSummary;
const MODELS = [
  model("zeta", "z-fast", "Zeta Fast", true),
  model("acme", "a-large", "Acme Large", true),
  model("acme", "a-small", "Acme Small", false),
  model("acme", "a-mini", "Acme Mini", true),
  model("omni", "o-1", "Omni One", false),
];

describe("the model picker's matching", () => {
  test("no search: available models grouped by provider in name order, the server's order inside; the rest only counted", () => {
    const { groups, flat, unavailable } = arrange(MODELS, "");
    assert.deepEqual(
      groups.map((g) => [g.provider, g.models.map((m) => m.id)]),
      [
        ["acme", ["a-large", "a-mini"]],
        ["zeta", ["z-fast"]],
      ],
    );
    assert.deepEqual(flat.map(refOf), ["acme/a-large", "acme/a-mini", "zeta/z-fast"]);
    assert.equal(unavailable, 2);
  });

  test("every word must match the name, provider or id, in any case", () => {
    assert.deepEqual(arrange(MODELS, "acme MINI").flat.map(refOf), ["acme/a-mini"]);
    assert.deepEqual(arrange(MODELS, "z-fa").flat.map(refOf), ["zeta/z-fast"]);
    const onlyUnavailable = arrange(MODELS, "omni");
    assert.deepEqual([onlyUnavailable.flat.length, onlyUnavailable.unavailable], [0, 1]);
    assert.deepEqual([arrange(MODELS, "nothing").flat.length, arrange(MODELS, "nothing").unavailable], [0, 0]);
  });
});
