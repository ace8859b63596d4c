#!/usr/bin/env node
// A real exchange with `knightcode app-server`, without any network: a
// scripted OpenAI-compatible model on 127.0.0.1 plays the model, the server
// runs real tools on a throwaway project, asks before writing a file, and
// saves the thread. Every message that crosses the wire is printed (long
// ones shortened).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { AppServerClient } from "@knightcode/app-server-client";
import { ScriptedModelServer } from "@knightcode/testkit";

const bin = fileURLToPath(new URL("../packages/cli/bin/knightcode.js", import.meta.url));
const home = mkdtempSync(join(tmpdir(), "knightcode-demo-"));
const project = join(home, "project");
mkdirSync(project);
writeFileSync(join(project, "README.md"), "# Demo project\nA tiny project for the KnightCode demo.\n");

const model = await ScriptedModelServer.start();
mkdirSync(join(home, "agent"), { recursive: true });
writeFileSync(join(home, "agent", "models.json"), JSON.stringify(model.modelsJson()));
model.enqueue(
  { reasoning: "Let me read the README first.", toolCalls: [{ id: "call_read", name: "read", arguments: { path: "README.md" } }] },
  {
    text: "It is a demo project. I'll add a NOTES.md.",
    toolCalls: [{ id: "call_write", name: "write", arguments: { path: "NOTES.md", content: "Read the README.\n" } }],
  },
  { text: ["The project ", "has a README ", "and now notes."] },
);

const short = (message) => {
  const text = JSON.stringify(message);
  return text.length > 300 ? `${text.slice(0, 297)}...` : text;
};
const client = AppServerClient.spawn({
  command: process.execPath,
  args: [bin, "app-server"],
  env: { ...process.env, HOME: home, KNIGHTCODE_CODING_AGENT_DIR: join(home, "agent") },
  stderr: "inherit",
  requestTimeoutMs: 20_000,
  tap: { outgoing: (m) => console.log(`-> ${short(m)}`), incoming: (m) => console.log(`<- ${short(m)}`) },
});
// The desktop app would show this to the user; the demo approves.
client.onRequest("item/toolCall/requestApproval", () => ({ decision: "accept" }));
try {
  await client.initialize({ clientInfo: { name: "knightcode-demo", version: "1" } });
  const { thread } = await client.request("thread/start", { cwd: project, approvalMode: "ask" });
  const done = new Promise((resolve) => client.onNotification("turn/completed", resolve));
  await client.request("turn/start", { threadId: thread.id, text: "What is in this project? Leave a note." });
  await done;
  const listed = await client.request("thread/list", {});
  console.log(`\nNOTES.md now says: ${JSON.stringify(readFileSync(join(project, "NOTES.md"), "utf8"))}`);
  console.log(`The thread "${listed.threads[0]?.title}" is saved in ${thread.sessionFile}`);
} finally {
  await client.close();
  await model.close();
  rmSync(home, { recursive: true, force: true });
}
