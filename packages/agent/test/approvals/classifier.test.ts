import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { waitUntil } from "@knightcode/testkit";
import { MAX_CLASSIFIED_INPUT, classifyToolCall, parseVerdict, type CallToClassify } from "../../src/approvals/classifier.js";
import { ModelRegistry } from "../../src/models/registry.js";
import type { ClassifierGateConfig } from "../../src/tools/tools-json.js";
import { runEnv, type RunEnv } from "../support/env.js";

let env: RunEnv;
before(async () => {
  env = await runEnv({ models: [{ id: "scripted-model" }, { id: "scripted-classifier" }] });
});
after(() => env.close());

const config: ClassifierGateConfig = { model: { provider: "scripted", id: "scripted-classifier" }, timeoutMs: 10_000 };
const call = (args: unknown = { command: "git push --force origin main" }): CallToClassify => ({ toolName: "bash", args, cwd: env.cwd });
const classify = (options: { config?: ClassifierGateConfig; args?: unknown; signal?: AbortSignal } = {}) =>
  classifyToolCall({
    registry: env.registry,
    config: options.config ?? config,
    call: call(options.args),
    ...(options.signal ? { signal: options.signal } : {}),
  });

/** The last request the scripted server got: its system prompt and user text. */
function lastPrompt(): { model: string; system: string; user: string } {
  const body = env.model.requests.at(-1)!.body;
  const messages = body.messages as { role: string; content: string | { type: string; text: string }[] }[];
  const text = (content: string | { text: string }[]) => (typeof content === "string" ? content : content.map((part) => part.text).join(""));
  return {
    model: String(body.model),
    system: text(messages.find((m) => m.role === "system")!.content),
    user: text(messages.find((m) => m.role === "user")!.content),
  };
}

describe("the classifier's verdict", () => {
  test("SAFE and RISKY replies become verdicts with their reasons", async () => {
    env.model.enqueue({ text: "SAFE: runs the project's tests" });
    assert.deepEqual(await classify({ args: { command: "npm test" } }), { verdict: "safe", reason: "runs the project's tests" });
    env.model.enqueue({ text: ["RISKY: force-pushes ", "over the remote's history"] });
    assert.deepEqual(await classify(), { verdict: "risky", reason: "force-pushes over the remote's history" });
  });

  test("the request goes to the configured model with our policy, the user's, and the call between markers", async () => {
    env.model.enqueue({ text: "RISKY: pushes" });
    await classify({ config: { ...config, instructions: "Deploy scripts under ops/ are always risky." } });
    const prompt = lastPrompt();
    assert.equal(prompt.model, "scripted-classifier");
    assert.match(prompt.system, /RISKY/);
    assert.match(prompt.system, /Deploy scripts under ops\/ are always risky\./);
    assert.match(prompt.user, new RegExp(`Working folder: ${env.cwd.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
    assert.match(prompt.user, /Tool: bash/);
    const marker = /<(call-[0-9a-f]{12})>\n([\s\S]*)\n<\/\1>/.exec(prompt.user);
    assert.ok(marker, prompt.user);
    assert.equal(marker[2], JSON.stringify({ command: "git push --force origin main" }));
  });

  test("a large input is cut in the middle: the classifier sees its head and its tail", async () => {
    env.model.enqueue({ text: "SAFE: writes a file" });
    const content = `HEAD${"x".repeat(50_000)}TAIL`;
    await classify({ args: { path: "big.txt", content } });
    const { user } = lastPrompt();
    assert.ok(user.length < MAX_CLASSIFIED_INPUT + 1_000, `${user.length}`);
    assert.match(user, /HEAD/);
    assert.match(user, /TAIL/);
    assert.match(user, /characters cut/);
  });

  test("a reply that is not a verdict fails closed, quoting the reply", async () => {
    for (const text of ["I think this is probably fine.", "SAFE or RISKY", "SAFETY first", ""]) {
      env.model.enqueue({ text });
      const judged = await classify();
      assert.equal(judged.verdict, "unjudged", text);
      assert.match(judged.reason, /answered neither SAFE nor RISKY/);
    }
  });

  test("an error status fails closed with the provider's error", async () => {
    env.model.enqueue({ status: 500, body: { error: { message: "classifier backend down" } } });
    const judged = await classify();
    assert.equal(judged.verdict, "unjudged");
    assert.match(judged.reason, /request to scripted\/scripted-classifier failed/);
  });

  test("a model that never answers fails closed when the timeout passes", async () => {
    const before = env.model.requests.length;
    env.model.enqueue({ text: "SAFE: never sent", pauseAfter: 0 });
    const judged = await classify({ config: { ...config, timeoutMs: 200 } });
    assert.deepEqual(judged, { verdict: "unjudged", reason: "scripted/scripted-classifier gave no verdict within 200 ms" });
    await waitUntil("the hanging request to be closed", () => env.model.requests[before]?.abortedAt !== undefined);
  });

  test("the turn's signal stops a request that hangs", async () => {
    const before = env.model.requests.length;
    env.model.enqueue({ text: "SAFE: never sent", pauseAfter: 0 });
    const turn = new AbortController();
    const judging = classify({ signal: turn.signal });
    await waitUntil("the classifier request to arrive", () => env.model.requests.length > before);
    turn.abort();
    assert.deepEqual(await judging, { verdict: "unjudged", reason: "the turn was interrupted" });
    await waitUntil("the hanging request to be closed", () => env.model.requests[before]?.abortedAt !== undefined);
  });

  test("an unknown model and a provider without credentials fail closed without a request", async () => {
    const before = env.model.requests.length;
    const unknown = await classify({ config: { ...config, model: { provider: "scripted", id: "no-such-model" } } });
    assert.deepEqual(unknown, { verdict: "unjudged", reason: "the classifier model scripted/no-such-model is not known" });
    const keyless = await classifyToolCall({
      registry: new ModelRegistry(env.agentDir, {}),
      config: { ...config, model: { provider: "anthropic", id: "claude-sonnet-4-5" } },
      call: call(),
    });
    assert.equal(keyless.verdict, "unjudged");
    assert.match(keyless.reason, /no credentials for anthropic/);
    assert.equal(env.model.requests.length, before);
  });
});

describe("parseVerdict", () => {
  test("reads the first line, with a colon or a dash, emphasis and a reason on the next line", () => {
    assert.deepEqual(parseVerdict("RISKY: deletes ~/"), { verdict: "risky", reason: "deletes ~/" });
    assert.deepEqual(parseVerdict("\n  **SAFE** - reads a file\n"), { verdict: "safe", reason: "reads a file" });
    assert.deepEqual(parseVerdict("risky\nsends the key to a web host"), { verdict: "risky", reason: "sends the key to a web host" });
    assert.deepEqual(parseVerdict("SAFE"), { verdict: "safe", reason: "no reason given" });
  });

  test("anything else is no verdict", () => {
    for (const text of ["", "It is SAFE: fine", "SAFE or RISKY: unsure", "SAFELY: yes", "Verdict: RISKY"]) assert.equal(parseVerdict(text), undefined, text);
  });
});
