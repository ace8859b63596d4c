import assert from "node:assert/strict";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, afterEach, before, describe, test } from "node:test";
import { silentUI } from "../../src/extensions/silent-ui.js";
import { SessionFile } from "@knightcode/store/session/session-file";
import { allowAllToolCalls } from "../../src/thread/gates.js";
import { ThreadRuntime } from "../../src/thread/runtime.js";
import type { ThreadEnvironment } from "../../src/thread/runtime-options.js";
import { TrustStore } from "../../src/trust/store.js";
import { runEnv, type RunEnv } from "../support/env.js";

let env: RunEnv;
let environment: ThreadEnvironment;
let toolsJson: string;
before(async () => {
  env = await runEnv({ models: [{ id: "scripted-model" }, { id: "scripted-classifier" }] });
  environment = { agentDir: env.agentDir, registry: env.registry, trust: new TrustStore(env.agentDir), extensionPaths: [], env: {} };
  toolsJson = join(env.agentDir, "tools.json");
});
afterEach(() => rmSync(toolsJson, { force: true }));
after(() => env.close());

const enabled = (id: string) => JSON.stringify({ classifiers: { gate: { enabled: true, model: { provider: "scripted", id } } } });
const call = { toolCallId: "call_1", toolName: "bash", args: { command: "rm -rf ~/photos" } };

async function open() {
  const cwd = join(env.dir, "project");
  mkdirSync(cwd, { recursive: true });
  const transcript = await SessionFile.create({ dir: join(env.dir, "sessions"), cwd });
  const { runtime, warnings } = await ThreadRuntime.create({
    approvalGate: allowAllToolCalls,
    environment,
    threadId: transcript.header.id,
    cwd,
    transcript,
    mode: "headless",
    hasUI: false,
    ui: silentUI(),
    onWarning: () => {},
  });
  return {
    runtime,
    warnings,
    async close() {
      await runtime.dispose("unload");
      transcript.close();
    },
  };
}

describe("the classifier gate at thread load", () => {
  test("without tools.json the gate is off and judges nothing", async () => {
    const thread = await open();
    const before = env.model.requests.length;
    assert.deepEqual(thread.runtime.classifierGate, { state: "off" });
    assert.equal(await thread.runtime.classifyToolCall(call, undefined), undefined);
    assert.equal(env.model.requests.length, before);
    await thread.close();
  });

  test("a configured gate asks its model about a call", async () => {
    writeFileSync(toolsJson, enabled("scripted-classifier"));
    const thread = await open();
    assert.deepEqual(thread.warnings, []);
    assert.equal(thread.runtime.classifierGate.state, "on");
    env.model.enqueue({ text: "RISKY: deletes the user's photos" });
    assert.deepEqual(await thread.runtime.classifyToolCall(call, undefined), { verdict: "risky", reason: "deletes the user's photos" });
    assert.equal(env.model.requests.at(-1)!.body.model, "scripted-classifier");
    assert.ok(
      JSON.stringify(env.model.requests.at(-1)!.body.messages).includes(`Agent folder: ${env.agentDir}`),
      "the classifier knows which folder is the agent's",
    );
    await thread.close();
  });

  test("an unknown model is a load warning, and the gate fails closed without a request", async () => {
    writeFileSync(toolsJson, enabled("no-such-model"));
    const thread = await open();
    const warning = thread.warnings.find((w) => w.path === toolsJson);
    assert.ok(warning, JSON.stringify(thread.warnings));
    assert.equal(warning.source, "settings");
    assert.match(warning.message, /scripted\/no-such-model is not a known model/);
    const before = env.model.requests.length;
    const judged = await thread.runtime.classifyToolCall(call, undefined);
    assert.equal(judged?.verdict, "unjudged");
    assert.match(judged!.reason, /scripted\/no-such-model is not a known model/);
    assert.equal(env.model.requests.length, before);
    await thread.close();
  });

  test("a malformed file is a load warning, not a failed load", async () => {
    writeFileSync(toolsJson, "{ not json");
    const thread = await open();
    const warning = thread.warnings.find((w) => w.path === toolsJson);
    assert.ok(warning, JSON.stringify(thread.warnings));
    assert.match(warning.message, /not valid JSON/);
    assert.equal(thread.runtime.classifierGate.state, "broken");
    await thread.close();
  });

  test("a reload reads the file again", async () => {
    const thread = await open();
    assert.equal(thread.runtime.classifierGate.state, "off");
    writeFileSync(toolsJson, enabled("scripted-classifier"));
    assert.deepEqual(await thread.runtime.reload(), []);
    assert.equal(thread.runtime.classifierGate.state, "on");
    await thread.close();
  });
});
