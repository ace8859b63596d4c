// A chat over stdio: spawn the server, start a thread in a folder, send one
// message and print the answer as it streams.
//   node examples/stdio-chat.mjs [folder] [message]
import { AppServerClient } from "@knightcode/app-server-client";

const cwd = process.argv[2] ?? process.cwd();
const text = process.argv[3] ?? "Say hello.";

const client = AppServerClient.spawn({ command: "knightcode", args: ["app-server"], stderr: "ignore", requestTimeoutMs: 30_000 });
try {
  await client.initialize({ clientInfo: { name: "stdio-chat", version: "1.0" } });
  const { thread, warnings } = await client.request("thread/start", { cwd });
  for (const warning of warnings) console.error(`warning: ${warning.message}`);

  const turn = await client.runTurn(thread.id, text);
  for await (const { method, params } of turn.events) {
    if (method === "item/agentMessage/delta") process.stdout.write(params.delta);
  }
  const done = await turn.completed;
  process.stdout.write(`\n[turn ${done.status}]\n`);
} finally {
  await client.close();
}
