import assert from "node:assert/strict";
import { test } from "node:test";
import { Type } from "typebox";
import { fauxAssistantMessage, fauxText, fauxThinking, fauxToolCall, registerFauxProvider } from "@mariozechner/pi-ai";
import { runEnv } from "../support/env.js";

test("a turn on pi-ai's faux provider: thinking, a tool call, its result and the answer", async () => {
  const env = await runEnv();
  const faux = registerFauxProvider({ provider: "faux", models: [{ id: "faux-1", reasoning: true }] });
  try {
    env.registry.registerProvider("test", { name: "faux", baseUrl: "http://127.0.0.1:9/v1", api: faux.api, apiKey: "unused", models: faux.models });
    const calls: string[] = [];
    const { session, transcript, events } = await env.session({
      defaultModel: { provider: "faux", id: "faux-1" },
      tools: [
        {
          name: "lookup",
          label: "Lookup",
          description: "Looks something up",
          parameters: Type.Object({ key: Type.String() }),
          execute: async (_id, params) => {
            calls.push((params as { key: string }).key);
            return { content: [{ type: "text", text: "value-42" }], details: {} };
          },
        },
      ],
    });
    faux.setResponses([
      fauxAssistantMessage([fauxThinking("I should look it up"), fauxToolCall("lookup", { key: "answer" })], { stopReason: "toolUse" }),
      (context) => {
        const last = context.messages.at(-1);
        assert.equal(last?.role, "toolResult");
        return fauxAssistantMessage(fauxText("The answer is value-42."));
      },
    ]);
    const result = await session.runTurn({ text: "what is the answer?" });
    assert.equal(result.status, "completed");
    assert.deepEqual(calls, ["answer"]);
    assert.ok(events.some((e) => e.type === "message_update" && e.event.type === "thinking_delta"));
    assert.ok(events.some((e) => e.type === "message_update" && e.event.type === "toolcall_delta"));
    const roles = transcript.ofType("message").map((e) => (e.message as { role: string }).role);
    assert.deepEqual(roles, ["user", "assistant", "toolResult", "assistant"]);
    assert.ok(session.usage.output > 0, "faux usage is counted");
  } finally {
    faux.unregister();
    await env.close();
  }
});
