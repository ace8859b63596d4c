import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setImmediate as nextTurn } from "node:timers/promises";
import { after, describe, test } from "node:test";
import { loadEngine } from "../../src/models/engine.js";
import { loadProvider, modelStreamOf, transportOf } from "../../src/models/providers.js";
import { ModelRegistry } from "../../src/models/registry.js";
import { warmRequest } from "../../src/models/warm-request.js";
import { warmDefaultModel, warmUp } from "../../src/thread/warm-up.js";
import { secureTransportPrepared } from "../../src/models/http-fetch.js";
import { waitUntil } from "@knightcode/testkit";

const root = mkdtempSync(join(tmpdir(), "kc-warm-up-"));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

/** An agent dir whose only usable model is a local one of `api`, or none. */
function agentDir(api?: string, baseUrl = "http://127.0.0.1:9/v1"): string {
  const dir = join(root, `a${n++}`);
  mkdirSync(dir, { recursive: true });
  if (api !== undefined) {
    const provider = { baseUrl, api, apiKey: "local-key", models: [{ id: "m" }] };
    writeFileSync(join(dir, "models.json"), JSON.stringify({ providers: { local: provider } }));
  }
  return dir;
}

/** An idle signal the test opens one step at a time. */
function steppedIdle() {
  const waiting: Array<() => void> = [];
  return {
    idle: () => new Promise<void>((resolve) => waiting.push(resolve)),
    waiting,
    async release(): Promise<void> {
      while (waiting.length === 0) await nextTurn();
      waiting.shift()!();
    },
  };
}

async function settles(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let i = 0; i < 50 && !settled; i++) await nextTurn();
  return settled;
}

describe("warm-up", () => {
  test("each step waits for the host to be idle: engine, agent run, the default model's resolution, then its provider and a request through it", async () => {
    const dir = agentDir("openai-responses");
    const steps = steppedIdle();
    const done = warmUp({ agentDir: dir, registry: new ModelRegistry(dir, {}), idle: steps.idle });
    for (let step = 0; step < 5; step++) {
      await steps.release();
      assert.equal(await settles(done), false, `waiting for idleness after step ${step + 1}`);
    }
    await steps.release();
    await done;
    assert.equal(steps.waiting.length, 0);
  });

  test("without a usable model it stops after looking for one", async () => {
    const dir = agentDir();
    let asked = 0;
    await warmUp({ agentDir: dir, registry: new ModelRegistry(dir, {}), idle: async () => void asked++ });
    assert.equal(asked, 4);
  });

  test("provider modules load by api; Bedrock's and unknown ones are left to their first use", async () => {
    assert.equal(await loadProvider("openai-completions"), true);
    assert.equal(await loadProvider("anthropic-messages"), true);
    assert.equal(await loadProvider("bedrock-converse-stream"), false);
    assert.equal(await loadProvider("no-such-api"), false);
    assert.equal(transportOf("bedrock-converse-stream"), "none");
    assert.equal(transportOf("openai-responses"), "modelFetch");
    assert.equal(transportOf("anthropic-messages"), "modelFetch");
    assert.equal(transportOf("google-generative-ai"), "fetch");
  });

  test("the request warm-up streams a canned reply through the provider where it knows the wire format, else through the transport its SDK uses", async () => {
    const registry = new ModelRegistry(agentDir("openai-responses"), {});
    for (const api of ["openai-responses", "openai-completions", "anthropic-messages"]) {
      const model = { ...(await registry.resolve()), api };
      assert.deepEqual(await warmRequest(model), { through: "provider", outcome: "done" }, api);
    }
    assert.deepEqual(await warmRequest({ ...(await registry.resolve()), api: "mistral-conversations" }), { through: "fetch" });
    assert.deepEqual(await warmRequest({ ...(await registry.resolve()), api: "azure-openai-responses" }), { through: "modelFetch" });
    assert.deepEqual(await warmRequest(), { through: "fetch" });
  });

  test("a provider loaded ahead streams through its module's own function while pi-ai's registry holds its own entry, else through pi-ai, which loads it for the next", async () => {
    const { ai } = await loadEngine();
    assert.equal(modelStreamOf(ai, "mistral-conversations"), ai.streamSimple, "not loaded ahead: pi-ai's");
    await waitUntil(
      "a model not loaded ahead to go the short way once its module loaded",
      () => modelStreamOf(ai, "mistral-conversations") !== ai.streamSimple,
    );
    const modules: Record<string, () => Promise<object>> = {
      "anthropic-messages": () => import("@mariozechner/pi-ai/anthropic"),
      "openai-completions": () => import("@mariozechner/pi-ai/openai-completions"),
      "openai-responses": () => import("@mariozechner/pi-ai/openai-responses"),
      "azure-openai-responses": () => import("@mariozechner/pi-ai/azure-openai-responses"),
      "openai-codex-responses": () => import("@mariozechner/pi-ai/openai-codex-responses"),
      "mistral-conversations": () => import("@mariozechner/pi-ai/mistral"),
      "google-generative-ai": () => import("@mariozechner/pi-ai/google"),
      "google-vertex": () => import("@mariozechner/pi-ai/google-vertex"),
    };
    for (const [api, load] of Object.entries(modules)) {
      assert.equal(await loadProvider(api), true, api);
      const own = modelStreamOf(ai, api);
      assert.notEqual(own, ai.streamSimple, `${api}: its module's own`);
      assert.ok(Object.values(await load()).includes(own), `${api}: a function its module exports`);
    }
    assert.equal(modelStreamOf(ai, "bedrock-converse-stream"), ai.streamSimple, "never loaded ahead: pi-ai's");

    // Something else registers the api: pi-ai's registry is what streams it again.
    const theirs = ai.getApiProvider("openai-responses");
    assert.ok(theirs);
    ai.registerApiProvider({ api: "openai-responses", stream: theirs.stream, streamSimple: theirs.streamSimple }, "a test");
    try {
      assert.equal(modelStreamOf(ai, "openai-responses"), ai.streamSimple);
    } finally {
      ai.unregisterApiProviders("a test");
      ai.registerApiProvider(theirs);
    }
  });

  test("a default model served over https has TLS made ready too, in a step of its own; one over http leaves it unloaded", async () => {
    const local = agentDir("openai-responses");
    await warmDefaultModel({ agentDir: local, registry: new ModelRegistry(local, {}), idle: async () => undefined });
    assert.equal(secureTransportPrepared(), false, "a model over http");
    const dir = agentDir("openai-responses", "https://127.0.0.1:9/v1");
    const steps = steppedIdle();
    const done = warmDefaultModel({ agentDir: dir, registry: new ModelRegistry(dir, {}), idle: steps.idle });
    for (let step = 0; step < 3; step++) {
      await steps.release();
      assert.equal(await settles(done), false, `waiting for idleness after step ${step + 1}`);
    }
    assert.equal(secureTransportPrepared(), false, "not before its own step");
    await steps.release();
    await done;
    assert.equal(secureTransportPrepared(), true);
  });
});
