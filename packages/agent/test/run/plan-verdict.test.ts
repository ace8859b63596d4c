import assert from "node:assert/strict";
import { test } from "node:test";
import type { AssistantMessage, ToolCall } from "@mariozechner/pi-ai";
import { followsPlanSubmission } from "../../src/run/plan-verdict.js";

const toolCall = (id: string, name: string): ToolCall => ({ type: "toolCall", id, name, arguments: {} });

function message(...content: AssistantMessage["content"]): AssistantMessage {
  return {
    role: "assistant",
    content,
    api: "openai-completions",
    provider: "test",
    model: "test",
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: "toolUse",
    timestamp: 0,
  };
}

test("a call after submit_plan in the same message follows it; one before it, or a message without it, does not", () => {
  const read = toolCall("r", "read");
  const plan = toolCall("p", "submit_plan");
  const bash = toolCall("b", "bash");
  const write = toolCall("w", "write");
  const batch = message({ type: "text", text: "Here is my plan." }, read, plan, bash, write);
  assert.equal(followsPlanSubmission(batch, read), false);
  assert.equal(followsPlanSubmission(batch, plan), false, "the submission itself runs");
  assert.equal(followsPlanSubmission(batch, bash), true);
  assert.equal(followsPlanSubmission(batch, write), true);
  assert.equal(followsPlanSubmission(message(read, bash), bash), false);
});

test("a second submit_plan in the same message follows the first", () => {
  const first = toolCall("p1", "submit_plan");
  const second = toolCall("p2", "submit_plan");
  assert.equal(followsPlanSubmission(message(first, second), second), true);
});

test("a call is placed by identity: a later call reusing an earlier call's id still follows the plan", () => {
  const early = toolCall("same", "read");
  const plan = toolCall("p", "submit_plan");
  const late = toolCall("same", "bash");
  const batch = message(early, plan, late);
  assert.equal(followsPlanSubmission(batch, early), false);
  assert.equal(followsPlanSubmission(batch, late), true);
  assert.equal(followsPlanSubmission(batch, { ...late }), true, "a copy is placed at the last call with its id");
});
