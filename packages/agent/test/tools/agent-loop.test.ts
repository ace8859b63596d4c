import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { runAgentLoop, type AgentEvent } from "@mariozechner/pi-agent-core";
import { fauxAssistantMessage, fauxText, fauxToolCall, registerFauxProvider, type Message } from "@mariozechner/pi-ai";
import { createBuiltinTools } from "../../src/tools/index.js";
import { tempDir } from "./support.js";

test("the tools run inside pi-agent-core's loop: results, errors and argument validation", async (t) => {
  const dir = await tempDir(t);
  const faux = registerFauxProvider();
  t.after(() => faux.unregister());
  faux.setResponses([
    fauxAssistantMessage([fauxToolCall("write", { path: "a.txt", content: "one\ntwo\n" }, { id: "w" })], { stopReason: "toolUse" }),
    fauxAssistantMessage([fauxToolCall("edit", { path: "a.txt", oldText: "two", newText: "2" }, { id: "e" })], { stopReason: "toolUse" }),
    fauxAssistantMessage(
      [fauxToolCall("bash", { command: "cat a.txt; exit 5" }, { id: "b" }), fauxToolCall("read", { path: "a.txt", offset: 0 }, { id: "r" })],
      { stopReason: "toolUse" },
    ),
    fauxAssistantMessage([fauxText("done")]),
  ]);
  const ends: Extract<AgentEvent, { type: "tool_execution_end" }>[] = [];
  await runAgentLoop(
    [{ role: "user", content: "go", timestamp: Date.now() }],
    { systemPrompt: "", messages: [], tools: createBuiltinTools({ cwd: dir }) },
    { model: faux.getModel(), convertToLlm: (messages) => messages as Message[] },
    async (event) => {
      if (event.type === "tool_execution_end") ends.push(event);
    },
  );
  const byId = new Map(ends.map((end) => [end.toolCallId, end]));
  assert.equal(await readFile(join(dir, "a.txt"), "utf8"), "one\n2\n");
  assert.equal(byId.get("w")?.isError, false);
  assert.equal(byId.get("w")?.result.details.fileChanges[0].kind, "add");
  assert.equal(byId.get("e")?.result.details.fileChanges[0].diff, "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n");
  assert.equal(byId.get("b")?.isError, true);
  assert.equal(byId.get("b")?.result.content[0].text, "one\n2\n\n[Command exited with code 5.]");
  assert.equal(byId.get("r")?.isError, true);
  assert.match(byId.get("r")?.result.content[0].text, /offset/);
});
