// A client in TypeScript, in a project of its own: spawn the server from
// the installed package, start a thread, stream a turn and answer its
// approvals by tool, in the turn's order.
//   node dist/main.js [folder] [message]
import { knightcodeBin } from "@knightcode/cli";
import { AppServerClient, AppServerError, isItemReference, isToolApproval, type ApprovalRequest, type ApprovalResponse } from "@knightcode/app-server-client";

const cwd = process.argv[2] ?? process.cwd();
const text = process.argv[3] ?? "Write notes.txt, then run ls.";

/** Writes and edits run; a shell command is declined with a reason the model sees. */
function decide(request: ApprovalRequest): ApprovalResponse {
  // isToolApproval narrows `input` to that tool's parameters: here bash's `command`.
  if (isToolApproval(request, "bash")) return { decision: "decline", message: `Not running \`${request.input?.command ?? "?"}\` from this client.` };
  if (isToolApproval(request, "write") || isToolApproval(request, "edit")) return { decision: "accept" };
  return { decision: "decline", message: "This client only accepts writes and edits." };
}

// `node <knightcodeBin>` runs the installed CLI: no PATH needed.
const client = AppServerClient.spawn({ command: process.execPath, args: [knightcodeBin, "app-server"], stderr: "ignore", requestTimeoutMs: 30_000 });
try {
  await client.initialize({ clientInfo: { name: "my-client", version: "1.0" } });
  const { thread, warnings } = await client.request("thread/start", { cwd, approvalMode: "ask" });
  for (const warning of warnings) console.error(`warning: ${warning.message}`);

  // requests: the turn's approvals come through its events, each after its call's item/started.
  const turn = await client.runTurn(thread.id, text, { requests: true });
  for await (const event of turn.events) {
    if (event.method === "item/agentMessage/delta") process.stdout.write(event.params.delta);
    // Checking `method` narrows `params`, and what `respond` takes.
    if (event.method === "item/toolCall/requestApproval") {
      const answer = decide(event.params);
      console.log(`approval: ${event.params.tool} -> ${answer.decision}`);
      event.request.respond(answer);
    }
    // A large item comes by reference ({id, type, payloadRef}); an inline one narrows on `type`.
    if (event.method === "item/completed" && !isItemReference(event.params.item) && event.params.item.type === "toolCall") {
      console.log(`tool ${event.params.item.name}: ${event.params.item.status}`);
    }
  }
  console.log(`\n[turn ${(await turn.completed).status}]`);
} catch (error) {
  // An error's `data` is typed by its code once `is` has checked it.
  if (error instanceof AppServerError && error.is("invalidParams") && error.data?.reason === "noModel") {
    console.error("No model is configured: see docs/models.md.");
    process.exitCode = 1;
  } else throw error;
} finally {
  await client.close();
}
