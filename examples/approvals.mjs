// Approvals: the server asks before a tool writes or runs a command. This
// client accepts reads and edits inside the project and declines shell
// commands, with a reason the model sees. It answers them where the turn's
// events are read, so each one is printed in the turn's order: after the
// call it is about has started.
//   node examples/approvals.mjs [folder] [message]
import { AppServerClient, isItemReference } from "@knightcode/app-server-client";

const cwd = process.argv[2] ?? process.cwd();
const text = process.argv[3] ?? "Write notes.txt, then run ls.";

const client = AppServerClient.spawn({ command: "knightcode", args: ["app-server"], stderr: "ignore", requestTimeoutMs: 30_000 });
try {
  await client.initialize({ clientInfo: { name: "approvals", version: "1.0" } });
  const { thread } = await client.request("thread/start", { cwd, approvalMode: "ask" });
  // requests: the turn's approvals come through its events, not onRequest handlers.
  const turn = await client.runTurn(thread.id, text, { requests: true });
  for await (const event of turn.events) {
    if (event.method === "item/toolCall/requestApproval") {
      const { tool, decisions, reason } = event.params;
      const shell = tool === "bash" || tool === "powershell";
      const decision = !shell && decisions.includes("accept") ? "accept" : "decline";
      console.log(`approval: ${tool}${reason ? ` (${reason})` : ""} -> ${decision}`);
      event.request.respond(decision === "decline" ? { decision, message: "No shell commands from this client." } : { decision });
    }
    // A large item comes by reference ({id, type, payloadRef}): only an inline one has its fields.
    if (event.method === "item/completed" && !isItemReference(event.params.item) && event.params.item.type === "toolCall") {
      console.log(`tool ${event.params.item.name}: ${event.params.item.status}`);
    }
  }
  console.log(`[turn ${(await turn.completed).status}]`);
} finally {
  await client.close();
}
