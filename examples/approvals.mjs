// Approvals: the server asks before a tool writes or runs a command. This
// client accepts reads and edits inside the project and declines shell
// commands, with a reason the model sees.
//   node examples/approvals.mjs [folder] [message]
import { AppServerClient, isItemReference } from "@knightcode/app-server-client";

const cwd = process.argv[2] ?? process.cwd();
const text = process.argv[3] ?? "Write notes.txt, then run ls.";

const client = AppServerClient.spawn({ command: "knightcode", args: ["app-server"], stderr: "ignore", requestTimeoutMs: 30_000 });
// A handler that throws is answered as a decline; this shows the bug here.
client.onHandlerError((error, { method }) => console.error(`handler for ${method} failed:`, error));
client.onRequest("item/toolCall/requestApproval", ({ tool, decisions, reason }) => {
  const shell = tool === "bash" || tool === "powershell";
  const decision = !shell && decisions.includes("accept") ? "accept" : "decline";
  console.log(`approval: ${tool}${reason ? ` (${reason})` : ""} -> ${decision}`);
  return decision === "decline" ? { decision, message: "No shell commands from this client." } : { decision };
});
try {
  await client.initialize({ clientInfo: { name: "approvals", version: "1.0" } });
  const { thread } = await client.request("thread/start", { cwd, approvalMode: "ask" });
  const turn = await client.runTurn(thread.id, text);
  for await (const { method, params } of turn.events) {
    // A large item comes by reference ({id, type, payloadRef}): only an inline one has its fields.
    if (method === "item/completed" && !isItemReference(params.item) && params.item.type === "toolCall") {
      console.log(`tool ${params.item.name}: ${params.item.status}`);
    }
  }
  console.log(`[turn ${(await turn.completed).status}]`);
} finally {
  await client.close();
}
